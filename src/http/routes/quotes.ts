import { created, type Http } from '../http.ts';
import type { Services } from '../../services/index.ts';
import { DataList, errors, IdParam, Paginated } from '../../wire/common.ts';
import { ExchangeRate, ExchangeRateQuery, Quote, QuoteCreate, QuoteListQuery, SandboxSend } from '../../wire/quotes.ts';
import { Transaction } from '../../wire/transactions.ts';
import { ms, pageOf } from './paging.ts';

const DOCS = {
  rates: {
    summary: 'Current rates and fees per currency pair',
    description:
      'For a source currency and an amount (sendingAmount, default 10000), what each destination currency ' +
      'would receive now, with the fixed fee and the amount limits. Indicative: only a quote locks a rate.',
  },
  create: {
    summary: 'Lock a rate and fees for a payment; creates its PENDING transaction',
    description:
      'Fixes the amount on one side (lockedCurrencySide) and computes the other from the current rate and ' +
      'fees. The quote expires at expiresAt unless executed; immediatelyExecute runs it at once. A ' +
      'REALTIME_FUNDING source answers paymentInstructions to pay into. Takes Idempotency-Key.',
  },
  list: {
    summary: 'List quotes (newest first)',
    description: 'Quotes of this environment, filtered by customer, account, UMA address, status or creation time.',
  },
  get: {
    summary: 'Get a quote',
    description: 'One quote, with the transaction it created (transactionId) and its current status.',
  },
  execute: {
    summary: 'Run a PENDING quote funded from an account (at most once)',
    description:
      'Debits the source account and hands the payment to its rail. A quote that expired, already ran or is ' +
      'funded in real time is a 409. Takes Idempotency-Key.',
  },
  sandboxSend: {
    summary: "Simulate the payer's funds arriving for a REALTIME_FUNDING quote",
    description:
      'Sandbox only. Name the quote (quoteId) or the reference from its payment instructions; the amount ' +
      'defaults to what the quote asks for. The payment then proceeds as if the funds had arrived.',
  },
};

export function quoteRoutes(api: Http, { quotes, rates }: Services): void {
  const tags = ['Quotes'];
  const params = IdParam('quoteId', 'Quote');
  api.get('/exchange-rates', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      ...DOCS.rates,
      querystring: ExchangeRateQuery,
      response: { 200: DataList(ExchangeRate), ...errors(400, 401, 403) },
    },
    handler: async (req) => rates.list(req.principal, req.query),
  });
  api.post('/quotes', {
    config: { permission: 'TRANSACT', idempotent: true },
    schema: {
      tags,
      ...DOCS.create,
      body: QuoteCreate,
      response: { 201: Quote, ...errors(400, 401, 403, 404, 409, 501) },
    },
    handler: async (req, reply) => created(reply, await quotes.create(req.principal, req.body)),
  });
  api.get('/quotes', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      ...DOCS.list,
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
    schema: { tags, ...DOCS.get, params, response: { 200: Quote, ...errors(401, 403, 404) } },
    handler: async (req) => quotes.get(req.principal, req.params.quoteId),
  });
  api.post('/quotes/:quoteId/execute', {
    config: { permission: 'TRANSACT', idempotent: true },
    schema: {
      tags,
      ...DOCS.execute,
      params,
      response: { 200: Quote, ...errors(400, 401, 403, 404, 409) },
    },
    handler: async (req) => quotes.execute(req.principal, req.params.quoteId),
  });
  api.post('/sandbox/send', {
    config: { permission: 'TRANSACT', sandboxOnly: true, idempotent: true },
    schema: {
      tags: ['Sandbox'],
      ...DOCS.sandboxSend,
      body: SandboxSend,
      response: { 200: Transaction, ...errors(400, 401, 403, 404, 409) },
    },
    handler: async (req) => quotes.sandboxSend(req.principal, req.body),
  });
}
