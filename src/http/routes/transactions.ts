import { created, emptyBodyIsObject, type Http } from '../http.ts';
import type { Services } from '../../services/index.ts';
import { errors, IdParam, Paginated } from '../../wire/common.ts';
import {
  CancelRequest,
  ConfirmRequest,
  Transaction,
  TransactionListQuery,
  TransferOutRequest,
  TransferRequest,
} from '../../wire/transactions.ts';
import { ms, pageOf } from './paging.ts';

const DOCS = {
  list: {
    summary: 'List transactions',
    description:
      'Outgoing and incoming payments of this environment, newest first unless sortOrder=asc. Filters combine; ' +
      'accountIdentifier matches either side. Pages with limit and cursor.',
  },
  get: {
    summary: 'Get a transaction',
    description: 'One transaction with its amounts, fees, status and, once settled or failed, when and why.',
  },
  cancel: {
    summary: 'Cancel an outgoing payment not yet handed to its rail; it fails and is refunded',
    description:
      'Only a funded OUTGOING payment not yet with its rail can be cancelled (PENDING, or PROCESSING while ' +
      'held); anything else is a 409. It moves to FAILED and its amount is refunded to the source account.',
  },
  confirm: {
    summary: "Record that the customer received the payment's receipt",
    description: 'Stores receiptDeliveryConfirmedAt (now when omitted) on the transaction. The body is optional.',
  },
  transferOut: {
    summary: 'Send from an internal account to an external account in the same currency',
    description:
      'No quote and no exchange: the amount leaves the internal account and arrives in the external one. The ' +
      'transaction starts PENDING and completes on the rail; a webhook reports each change. Takes ' +
      'Idempotency-Key.',
  },
  transferIn: {
    summary: 'Pull from a pullable external account into an internal account in the same currency',
    description:
      'Debits an external account that allows pulls (for example a linked bank account) into an internal ' +
      'account of the same currency. Takes Idempotency-Key.',
  },
};

export function transactionRoutes(api: Http, { transactions }: Services): void {
  const tags = ['Transactions'];
  api.get('/transactions', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      ...DOCS.list,
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
      ...DOCS.get,
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
      ...DOCS.cancel,
      params,
      body: CancelRequest,
      response: { 200: Transaction, ...errors(400, 401, 403, 404, 409) },
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
      ...DOCS.confirm,
      params,
      body: ConfirmRequest,
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
      ...DOCS.transferOut,
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
      ...DOCS.transferIn,
      body: TransferRequest,
      response: { 201: Transaction, ...errors(400, 401, 403, 404, 422) },
    },
    handler: async (req, reply) => {
      return created(reply, await transfers.transferIn(req.principal, req.body));
    },
  });
}
