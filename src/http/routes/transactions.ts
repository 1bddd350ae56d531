import { Type } from '@sinclair/typebox';
import { created, emptyBodyIsObject, type Http } from '../http.ts';
import type { Services } from '../../services/index.ts';
import { errors, IdParam, Paginated, Timestamp } from '../schemas/common.ts';
import { Transaction, TransactionListQuery, TransferOutRequest, TransferRequest } from '../schemas/transactions.ts';
import { ms, pageOf } from './paging.ts';

export function transactionRoutes(api: Http, { transactions }: Services): void {
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
  const params = IdParam('transactionId', 'Transaction');
  api.post('/transactions/:transactionId/cancel', {
    config: { permission: 'TRANSACT' },
    schema: {
      tags,
      summary: 'Cancel an outgoing payment not yet handed to its rail; it fails and is refunded',
      params,
      body: Type.Object({ reason: Type.Optional(Type.String({ maxLength: 1000, description: 'Kept in the log' })) }),
      response: { 200: Transaction, ...errors(401, 403, 404, 409) },
    },
    preValidation: emptyBodyIsObject,
    handler: async (req) => {
      req.log.info({ transactionId: req.params.transactionId, reason: req.body.reason }, 'cancellation requested');
      return transactions.cancel(req.principal, req.params.transactionId);
    },
  });
  api.post('/transactions/:transactionId/confirm', {
    config: { permission: 'TRANSACT' },
    schema: {
      tags,
      summary: "Record that the customer received the payment's receipt",
      params,
      body: Type.Object({ receiptDeliveryConfirmedAt: Type.Optional(Timestamp) }),
      response: { 200: Transaction, ...errors(400, 401, 403, 404) },
    },
    preValidation: emptyBodyIsObject,
    handler: async (req) =>
      transactions.confirmReceipt(req.principal, req.params.transactionId, ms(req.body.receiptDeliveryConfirmedAt)),
  });
}

/** Same-currency transfers: no quote, the amount is the amount on both sides. */
export function transferRoutes(api: Http, { transfers }: Services): void {
  const tags = ['Transactions'];
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
