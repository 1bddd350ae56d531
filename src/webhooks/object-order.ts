/**
 * An object's events reach the receiver in the order they were recorded (a payment's PENDING before its
 * COMPLETED). Two rules keep it:
 * - in one process, the worker's outside lane runs the deliveries of one object one after another
 *   (deliveryOrderKey);
 * - across processes and retries, an event waits while an earlier event of its object in the same scope
 *   is still PENDING (earlierPendingOfSameObject), and looks again after ORDER_WAIT_MS.
 */
import type { ExpressionBuilder } from 'kysely';
import type { DeliverPayload } from '../jobs/kinds.ts';
import type { Database } from '../store/schema.ts';

/** How soon an event that waits behind an earlier one of the same object looks again (wall clock). */
export const ORDER_WAIT_MS = 1000;

/** The lane's order key of a delivery: its object (older jobs carry none, and go alone). */
export const deliveryOrderKey = (payload: DeliverPayload): string => payload.objectId ?? payload.eventId;

/**
 * Whether an event of the same object and scope as `events` is PENDING and earlier: recorded before it,
 * or at the same millisecond with a smaller id (ids break the tie the same way on every reader).
 */
export function earlierPendingOfSameObject(eb: ExpressionBuilder<Database, 'events'>) {
  return eb.exists(
    eb
      .selectFrom('events as earlier')
      .select('earlier.id')
      .whereRef('earlier.platform_id', '=', 'events.platform_id')
      .whereRef('earlier.environment', '=', 'events.environment')
      .whereRef('earlier.object_id', '=', 'events.object_id')
      .where('earlier.delivery_state', '=', 'PENDING')
      .where((e) =>
        e.or([
          e('earlier.created_at', '<', e.ref('events.created_at')),
          e.and([e('earlier.created_at', '=', e.ref('events.created_at')), e('earlier.id', '<', e.ref('events.id'))]),
        ]),
      ),
  );
}
