import type { Http } from '../http.ts';
import { created } from '../http.ts';
import type { Services } from '../../services/index.ts';
import { errors } from '../../wire/common.ts';
import { SandboxTrigger, SandboxTriggerRequest } from '../../wire/sandbox.ts';

const DOCS = {
  summary: 'Make a webhook event happen: run the sandbox flow that records it',
  description:
    'Sandbox only. Creates what the flow needs (a customer, a funded internal account, an external account ' +
    'whose number suffix picks the outcome, a quote, a transfer, documents, a verification, an invitation…), ' +
    'runs its due steps now and answers once the event is recorded, naming every object it created; the ' +
    'webhook follows as usual (GET /webhook-events shows it). One database transaction: all of it or ' +
    'nothing. Only OUTGOING_PAYMENT.EXPIRED moves the sandbox clock (by what is left of its quote’s life). ' +
    'Takes Idempotency-Key.',
};

export function sandboxTriggerRoutes(api: Http, { sandboxTriggers }: Services): void {
  api.post('/sandbox/trigger', {
    config: { permission: 'TRANSACT', sandboxOnly: true, idempotent: true },
    schema: {
      tags: ['Sandbox'],
      ...DOCS,
      body: SandboxTriggerRequest,
      response: { 201: SandboxTrigger, ...errors(400, 401, 403) },
    },
    handler: async (req, reply) => created(reply, await sandboxTriggers.trigger(req.principal, req.body.event)),
  });
}
