import { newId } from '../domain/ids.ts';
import { enqueueJob } from '../jobs/queue.ts';
import type { DeliverPayload } from '../jobs/kinds.ts';
import type { Tx } from '../store/db.ts';
import { deferInsert } from '../store/deferred-writes.ts';
import type { Scope } from '../context.ts';

export interface EventInput {
  /** OBJECT.EVENT, e.g. OUTGOING_PAYMENT.PENDING, INCOMING_PAYMENT.COMPLETED, INVITATION.CLAIMED. */
  type: string;
  objectId: string;
  /** The resource as GET returns it now. */
  data: unknown;
}

/** Queues delivery of an event in the caller's transaction. `realNowMs` is wall-clock time. */
export async function enqueueDelivery(
  trx: Tx,
  scope: Scope,
  payload: DeliverPayload,
  realNowMs: number,
  delayMs = 0,
): Promise<string> {
  return enqueueJob(trx, scope, 'webhook.deliver', payload, realNowMs, delayMs);
}

/**
 * Records an event in the caller's transaction: it commits with the change it reports, or not at all.
 * Its delivery job is queued in the same transaction, so a committed event is always delivered (or
 * marked NO_ENDPOINT); delivery itself happens later, outside any transaction (webhooks/delivery.ts).
 * A scope known to have no endpoint marks the event NO_ENDPOINT at once: no job, no later work.
 * `nowMs` is scope time (`scopeNowMs(ctx, scope)`); `scope` must carry its clock offset, as every scope
 * from a request or from loadScope does, since the job queue runs on wall-clock time.
 */
export async function recordEvent(trx: Tx, scope: Scope, event: EventInput, nowMs: number): Promise<string> {
  if (scope.hasWebhookEndpoint === false) return insertEvent(trx, scope, event, nowMs, false);
  return (await recordEventForDelivery(trx, scope, event, nowMs)).eventId;
}

/**
 * recordEvent that always queues the delivery job and names it, for a caller that runs that job itself
 * right after commit and acts on its answer (the incoming-payment approval request), endpoint or not.
 */
export async function recordEventForDelivery(
  trx: Tx,
  scope: Scope,
  event: EventInput,
  nowMs: number,
): Promise<{ eventId: string; jobId: string }> {
  const id = await insertEvent(trx, scope, event, nowMs, true);
  const jobId = await enqueueDelivery(
    trx,
    scope,
    { eventId: id, objectId: event.objectId, run: 1, attempt: 1 },
    nowMs - (scope.clockOffsetMs ?? 0),
  );
  return { eventId: id, jobId };
}

async function insertEvent(trx: Tx, scope: Scope, event: EventInput, nowMs: number, deliver: boolean): Promise<string> {
  const id = newId('Webhook');
  await deferInsert(trx, 'events', {
    id,
    platform_id: scope.platformId,
    environment: scope.environment,
    type: event.type,
    object_id: event.objectId,
    data: JSON.stringify(event.data),
    created_at: BigInt(nowMs),
    delivery_state: deliver ? 'PENDING' : 'NO_ENDPOINT',
    delivery_run: 1n,
    delivery_updated_at: deliver ? null : BigInt(nowMs),
  });
  return id;
}
