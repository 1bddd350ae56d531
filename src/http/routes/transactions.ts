import { Type } from '@sinclair/typebox';
import type { Http } from '../http.ts';
import type { Services } from '../../services/index.ts';
import { errors, IdParam, Paginated } from '../schemas/common.ts';
import { Transaction, TransactionListQuery, TransferRequest } from '../schemas/transactions.ts';
import { ms, pageOf } from './paging.ts';

const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
});

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
  const transferRoutes = [
    {
      path: '/transfer-out',
      summary: 'Send from an internal account to an external account in the same currency',
      run: transfers.transferOut,
    },
    {
      path: '/transfer-in',
      summary: 'Pull from a pullable external account into an internal account in the same currency',
      run: transfers.transferIn,
    },
  ];
  for (const { path, summary, run } of transferRoutes) {
    api.post(path, {
      config: { permission: 'TRANSACT' },
      schema: {
        tags,
        summary,
        headers: IdempotencyHeaders,
        body: TransferRequest,
        response: { 201: Transaction, ...errors(400, 401, 403, 404, 422) },
      },
      handler: async (req, reply) => {
        const result = await run(req.principal, req.body, req.headers['idempotency-key']);
        return reply.status(result.status as 201).send(result.body);
      },
    });
  }
}
