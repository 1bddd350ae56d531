import { created, type Http } from '../http.ts';
import type { Services } from '../../services/index.ts';
import { DataList, errors, IdParam, Paginated } from '../schemas/common.ts';
import { ExchangeRate, ExchangeRateQuery, Quote, QuoteCreate, QuoteListQuery, SandboxSend } from '../schemas/quotes.ts';
import { Transaction } from '../schemas/transactions.ts';
import { ms, pageOf } from './paging.ts';

export function quoteRoutes(api: Http, { quotes, rates }: Services): void {
  const tags = ['Quotes'];
  const params = IdParam('quoteId', 'Quote');
  api.get('/exchange-rates', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      summary: 'Current rates and fees per currency pair',
      querystring: ExchangeRateQuery,
      response: { 200: DataList(ExchangeRate), ...errors(400, 401, 403) },
    },
    handler: async (req) => rates.list(req.principal, req.query),
  });
  api.post('/quotes', {
    config: { permission: 'TRANSACT', idempotent: true },
    schema: {
      tags,
      summary: 'Lock a rate and fees for a payment; creates its PENDING transaction',
      body: QuoteCreate,
      response: { 201: Quote, ...errors(400, 401, 403, 404, 409, 501) },
    },
    handler: async (req, reply) => created(reply, await quotes.create(req.principal, req.body)),
  });
  api.get('/quotes', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      summary: 'List quotes (newest first)',
      querystring: QuoteListQuery,
      response: { 200: Paginated(Quote), ...errors(400, 401, 403) },
    },
    handler: async (req) => {
      const q = req.query;
      return quotes.list(
        req.principal,
        { ...q, createdAfter: ms(q.createdAfter), createdBefore: ms(q.createdBefore) },
        pageOf(q, 'desc'),
      );
    },
  });
  api.get('/quotes/:quoteId', {
    config: { permission: 'VIEW' },
    schema: { tags, summary: 'Get a quote', params, response: { 200: Quote, ...errors(401, 403, 404) } },
    handler: async (req) => quotes.get(req.principal, req.params.quoteId),
  });
  api.post('/quotes/:quoteId/execute', {
    config: { permission: 'TRANSACT', idempotent: true },
    schema: {
      tags,
      summary: 'Run a PENDING quote funded from an account (at most once)',
      params,
      response: { 200: Quote, ...errors(400, 401, 403, 404, 409) },
    },
    handler: async (req) => quotes.execute(req.principal, req.params.quoteId),
  });
  api.post('/sandbox/send', {
    config: { permission: 'TRANSACT', sandboxOnly: true, idempotent: true },
    schema: {
      tags: ['Sandbox'],
      summary: "Simulate the payer's funds arriving for a REALTIME_FUNDING quote",
      body: SandboxSend,
      response: { 200: Transaction, ...errors(400, 401, 403, 404, 409) },
    },
    handler: async (req) => quotes.sandboxSend(req.principal, req.body),
  });
}
