import { newId } from '../domain/ids.ts';
import type { Tx } from '../store/db.ts';
import type { Scope } from '../services/context.ts';

export interface EventInput {
  /** OBJECT.EVENT, e.g. OUTGOING_PAYMENT.PENDING, INCOMING_PAYMENT.COMPLETED, INVITATION.CLAIMED. */
  type: string;
  objectId: string;
  /** The resource as GET returns it now. */
  data: unknown;
}

/**
 * Records an event in the caller's transaction: it commits with the change it reports, or not at all.
 * Delivery happens later, outside any database transaction (see webhooks/delivery).
 */
export async function recordEvent(trx: Tx, scope: Scope, event: EventInput, nowMs: number): Promise<string> {
  const id = newId('Webhook');
  await trx
    .insertInto('events')
    .values({
      id,
      platform_id: scope.platformId,
      environment: scope.environment,
      type: event.type,
      object_id: event.objectId,
      data: JSON.stringify(event.data),
      created_at: BigInt(nowMs),
    })
    .execute();
  return id;
}
