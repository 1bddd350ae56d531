// The Sandbox screen's Triggers tab: run the flow that records one webhook event type (the service behind
// POST /sandbox/trigger), then show the event and what the flow created, each linked to its own page.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import { TRIGGER_EVENTS, type TriggerEvent } from '../../domain/sandbox-triggers.ts';
import { TRIGGER_SUMMARIES, type TriggerObjects, type TriggerResult } from '../../services/sandbox-triggers.ts';
import { choice, fieldsOf } from '../form.ts';
import { done, need, type Screens } from '../render.ts';
import { sandboxOnly, sandboxPage } from './sandbox-tabs.ts';

declare module '@fastify/secure-session' {
  interface SessionData {
    /** The last trigger's answer, shown once on the Triggers tab after the form's redirect, like a flash. */
    triggered: TriggerResult;
  }
}

const hide = { schema: { hide: true } };

/** The event types by family (OUTGOING_PAYMENT, VERIFICATION…), each with what its flow does. */
function groups() {
  const byFamily = new Map<string, Array<{ event: TriggerEvent; summary: string }>>();
  for (const event of TRIGGER_EVENTS) {
    const family = event.split('.')[0] ?? event;
    byFamily.set(family, [...(byFamily.get(family) ?? []), { event, summary: TRIGGER_SUMMARIES[event] }]);
  }
  return [...byFamily].map(([family, events]) => ({ family, events }));
}

/** What a trigger made, in the order a person reads it; the kinds the dashboard has a page for are links. */
const KINDS: ReadonlyArray<[keyof TriggerObjects, string, string?]> = [
  ['transactionId', 'Transaction', '/dashboard/transactions/'],
  ['quoteId', 'Quote', '/dashboard/quotes/'],
  ['customerId', 'Customer', '/dashboard/customers/'],
  ['inviteeCustomerId', 'Invited customer', '/dashboard/customers/'],
  ['internalAccountId', 'Internal account'],
  ['externalAccountId', 'External account'],
  ['beneficialOwnerId', 'Beneficial owner'],
  ['documentIds', 'Document'],
  ['verificationId', 'Verification'],
  ['invitationCode', 'Invitation'],
  ['configId', 'Webhook configuration'],
];

function createdObjects(objects: TriggerObjects): Array<{ kind: string; id: string; href: string | undefined }> {
  return KINDS.flatMap(([key, kind, base]) => {
    const value = objects[key];
    const ids = value === undefined ? [] : Array.isArray(value) ? value : [value];
    return ids.map((id) => ({ kind, id, href: base === undefined ? undefined : base + encodeURIComponent(id) }));
  });
}

/** The event a shown trigger recorded, or undefined when it is gone since (a reset or a restore). */
async function eventOf({ services }: Screens, req: FastifyRequest, eventId: string) {
  try {
    return await services.webhooks.get(req.principal, eventId);
  } catch (err) {
    if (err instanceof AppError && err.status === 404) return undefined;
    throw err;
  }
}

export function sandboxTriggerScreens(app: FastifyInstance, screens: Screens): void {
  const { services, page } = screens;
  const show = sandboxPage(page);

  app.get('/sandbox/triggers', hide, async (req, reply) => {
    need(req, 'VIEW');
    sandboxOnly(req);
    const result = req.session.get('triggered');
    if (result) req.session.set('triggered', undefined);
    return show(req, reply, 'triggers', 'sandbox-triggers', {
      groups: groups(),
      result,
      created: result ? createdObjects(result.objects) : [],
      event: result ? await eventOf(screens, req, result.eventId) : undefined,
    });
  });

  app.post('/sandbox/triggers', hide, async (req, reply) => {
    need(req, 'TRANSACT');
    sandboxOnly(req);
    const event = choice(fieldsOf(req.body), 'event', TRIGGER_EVENTS, true) as TriggerEvent;
    const result = await services.sandboxTriggers.trigger(req.principal, event);
    req.session.set('triggered', result);
    const moved =
      result.clockAdvancedMs > 0
        ? ` The sandbox clock moved ${Math.ceil(result.clockAdvancedMs / 1000)} s forward.`
        : '';
    return done(req, reply, '/dashboard/sandbox/triggers', `${event} recorded as ${result.eventId}.${moved}`);
  });
}
