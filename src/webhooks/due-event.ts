/**
 * What a delivery job finds when it runs: the event to send now, a turn to wait, or nothing left to do.
 * One statement answers all of it, since every delivery of every event asks: the event, whether this
 * attempt is already recorded, whether an earlier event of its object waits, and the settings it uses.
 */
import type { DeliverPayload } from '../jobs/kinds.ts';
import type { Scope } from '../context.ts';
import type { Db } from '../store/db.ts';
import { statement } from '../store/compiled.ts';
import type { EventsTable, WebhookEnvelope } from '../store/schema.ts';
import { scopedEvents } from './event-log.ts';
import { earlierPendingOfSameObject } from './object-order.ts';

/** The event a delivery job acts on, with the platform's webhook settings as they are at the attempt. */
export interface DueEvent {
  event: EventsTable;
  endpoint: string | null;
  envelope: WebhookEnvelope;
  /** Whether the endpoint is reported failing now (only then does a success have a report to clear). */
  failing: boolean;
}

/**
 * The event this job should send now, 'WAIT' when an earlier event of the same object is still pending
 * (the receiver must see an object's changes in order), or undefined when there is nothing left to do.
 */
export async function dueEvent(db: Db, payload: DeliverPayload, scope: Scope): Promise<DueEvent | 'WAIT' | undefined> {
  const row = await dueEventRow.first(db, {
    platformId: scope.platformId,
    environment: scope.environment,
    eventId: payload.eventId,
    run: BigInt(payload.run),
    attempt: BigInt(payload.attempt),
  });
  // Delivered, failed, or redelivered since this job was queued: nothing left for it to do.
  if (!row || row.delivery_state !== 'PENDING' || Number(row.delivery_run) !== payload.run) return undefined;
  const { webhook_endpoint, webhook_envelope, webhook_failing_since, recorded, waiting, ...event } = row;
  // A process that died after recording this attempt already queued the next one.
  if (truthy(recorded)) return undefined;
  if (truthy(waiting)) return 'WAIT';
  return { event, endpoint: webhook_endpoint, envelope: webhook_envelope, failing: webhook_failing_since !== null };
}

interface DueEventKey {
  platformId: string;
  environment: Scope['environment'];
  eventId: string;
  run: bigint;
  attempt: bigint;
}

const dueEventRow = statement((db, v: DueEventKey) =>
  scopedEvents(db, { platformId: v.platformId, environment: v.environment })
    .innerJoin('platform_configs', (j) =>
      j
        .onRef('platform_configs.platform_id', '=', 'events.platform_id')
        .onRef('platform_configs.environment', '=', 'events.environment'),
    )
    .selectAll('events')
    .select(['platform_configs.webhook_endpoint', 'platform_configs.webhook_envelope'])
    .select(['platform_configs.webhook_failing_since'])
    .select((eb) => [
      eb
        .exists(
          eb
            .selectFrom('webhook_attempts')
            .select('webhook_attempts.attempt')
            .whereRef('webhook_attempts.event_id', '=', 'events.id')
            .where('webhook_attempts.run', '=', v.run)
            .where('webhook_attempts.attempt', '=', v.attempt),
        )
        .as('recorded'),
      earlierPendingOfSameObject(eb).as('waiting'),
    ])
    .where('events.id', '=', v.eventId),
);

/** EXISTS answers a boolean on PostgreSQL and 0 or 1 on SQLite. */
const truthy = (value: unknown): boolean => value === true || value === 1n || value === 1;
