import { emptyBodyIsObject, type Http } from '../http.ts';
import type { Services } from '../../services/index.ts';
import { errors, IdParam } from '../../wire/common.ts';
import { ApprovePayment, RejectPayment, SandboxUmaReceive, Transaction } from '../../wire/transactions.ts';

const DOCS = {
  receive: {
    summary:
      'Simulate an incoming UMA payment to one of your customers; the approval webhook is sent, and answered, ' +
      'before this returns',
    description:
      'Sandbox only. Creates a PENDING INCOMING transaction for the customer with receiverUmaAddress (or ' +
      'customerId) and asks the platform for approval by webhook: a 2xx approves it, 202 leaves it PENDING ' +
      'until approve or reject (or a time-out), 403 rejects it, anything else fails it.',
  },
  approve: {
    summary: 'Approve an incoming payment awaiting approval (after a 202 answer to its webhook)',
    description:
      'Credits a PENDING incoming payment the platform answered 202 for; receiverCustomerInfo carries the ' +
      'fields the sender asked for. The body is optional. A payment no longer PENDING is a 409.',
  },
  reject: {
    summary: 'Reject an incoming payment awaiting approval (after a 202 answer to its webhook)',
    description: 'Rejects an incoming payment the platform answered 202 for. The body is optional.',
  },
};

/** Incoming UMA payments: the sandbox's simulated arrival, and the platform's asynchronous decision. */
export function incomingPaymentRoutes(api: Http, { incomingPayments }: Services): void {
  const tags = ['Transactions'];
  const params = IdParam('transactionId', 'Transaction');

  api.post('/sandbox/uma/receive', {
    config: { permission: 'TRANSACT', sandboxOnly: true },
    schema: {
      tags: ['Sandbox'],
      ...DOCS.receive,
      body: SandboxUmaReceive,
      response: { 200: Transaction, ...errors(400, 401, 403, 404) },
    },
    handler: async (req) => incomingPayments.receive(req.principal, req.body),
  });
  api.post('/transactions/:transactionId/approve', {
    config: { permission: 'TRANSACT' },
    preValidation: emptyBodyIsObject,
    schema: {
      tags,
      ...DOCS.approve,
      params,
      body: ApprovePayment,
      response: { 200: Transaction, ...errors(400, 401, 403, 404, 409) },
    },
    handler: async (req) =>
      incomingPayments.approve(req.principal, req.params.transactionId, req.body.receiverCustomerInfo),
  });
  api.post('/transactions/:transactionId/reject', {
    config: { permission: 'TRANSACT' },
    preValidation: emptyBodyIsObject,
    schema: {
      tags,
      ...DOCS.reject,
      params,
      body: RejectPayment,
      response: { 200: Transaction, ...errors(400, 401, 403, 404, 409) },
    },
    handler: async (req) => incomingPayments.reject(req.principal, req.params.transactionId, req.body.reason),
  });
}
