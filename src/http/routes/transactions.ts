import { created, type Http } from '../http.ts';
import type { Services } from '../../services/index.ts';
import { errors, IdParam, Paginated } from '../schemas/common.ts';
import { Transaction, TransactionListQuery, TransferOutRequest, TransferRequest } from '../schemas/transactions.ts';
import { ms, pageOf } from './paging.ts';

export function transactionRoutes(api: Http, { transactions, transfers }: Services): void {
  const tags = ['Transactions'];
  api.get('/transactions', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      summary: 'List transactions',
      querystring: TransactionListQuery,
      response: { 200: Paginated(Transaction), ...errors(400, 401, 403) },
    },
    handler: async (req) => {
      const q = req.query;
      return transactions.list(
        req.principal,
        { ...q, startDate: ms(q.startDate), endDate: ms(q.endDate) },
        pageOf(q, q.sortOrder ?? 'desc'),
      );
    },
  });
  api.get('/transactions/:transactionId', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      summary: 'Get a transaction',
      params: IdParam('transactionId', 'Transaction'),
      response: { 200: Transaction, ...errors(401, 403, 404) },
    },
    handler: async (req) => transactions.get(req.principal, req.params.transactionId),
  });
  api.post('/transfer-out', {
    config: { permission: 'TRANSACT', idempotent: true },
    schema: {
      tags,
      summary: 'Send from an internal account to an external account in the same currency',
      body: TransferOutRequest,
      response: { 201: Transaction, ...errors(400, 401, 403, 404, 422) },
    },
    handler: async (req, reply) => {
      return created(reply, await transfers.transferOut(req.principal, req.body));
    },
  });
  api.post('/transfer-in', {
    config: { permission: 'TRANSACT', idempotent: true },
    schema: {
      tags,
      summary: 'Pull from a pullable external account into an internal account in the same currency',
      body: TransferRequest,
      response: { 201: Transaction, ...errors(400, 401, 403, 404, 422) },
    },
    handler: async (req, reply) => {
      return created(reply, await transfers.transferIn(req.principal, req.body));
    },
  });
}
