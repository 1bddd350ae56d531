/**
 * The delivery log as the events API shows it: a page of events, one event with every attempt, and
 * redelivery (a fresh run of an event, whatever its state).
 */
import { sql, type QueryCreator } from 'kysely';
import { iso } from '../domain/clock.ts';
import { AppError, notFound } from '../domain/errors.ts';
import type { Page, PageRequest } from '../domain/paging.ts';
import type { JobWorker } from '../jobs/worker.ts';
import { scopeNowMs, type Ctx, type Scope } from '../context.ts';
import type { Db, Tx } from '../store/db.ts';
import { keysetPage, mapPage } from '../store/paging.ts';
import type { Database, DeliveryState, EventsTable, WebhookAttemptsTable } from '../store/schema.ts';
import { enqueueDelivery } from './events.ts';

export interface WebhookAttempt {
  run: number;
  attempt: number;
  url: string;
  startedAt: string;
  responseStatus: number | null;
  latencyMs: number;
  error: string | null;
  responseBody: string | null;
  /** The headers sent (signatures included: they prove, they do not authenticate); null before 019. */
  requestHeaders: Record<string, string> | null;
  /** The exact body sent; null for attempts recorded before 019. */
  requestBody: string | null;
}

export interface WebhookEvent {
  id: string;
  type: string;
  objectId: string;
  data: unknown;
  deliveryState: DeliveryState;
  createdAt: string;
  deliveryUpdatedAt?: string;
  attempts?: WebhookAttempt[];
}

export interface WebhookEventFilters {
  type?: string | undefined;
  objectId?: string | undefined;
  deliveryState?: DeliveryState | undefined;
}

/**
 * `delivery_state = 'FAILED'` with the state as a literal: only then can either planner use the partial
 * index of failed deliveries (migration 020), which finds them without reading the platform's other events.
 */
export const DELIVERY_FAILED = sql.lit<DeliveryState>('FAILED');

function toEvent(row: EventsTable): WebhookEvent {
  const event: WebhookEvent = {
    id: row.id,
    type: row.type,
    objectId: row.object_id,
    data: JSON.parse(row.data) as unknown,
    deliveryState: row.delivery_state,
    createdAt: iso(row.created_at),
  };
  if (row.delivery_updated_at !== null) event.deliveryUpdatedAt = iso(row.delivery_updated_at);
  return event;
}

function toAttempt(row: WebhookAttemptsTable): WebhookAttempt {
  return {
    run: Number(row.run),
    attempt: Number(row.attempt),
    url: row.url,
    startedAt: iso(row.started_at),
    responseStatus: row.status_code === null ? null : Number(row.status_code),
    latencyMs: Number(row.latency_ms),
    error: row.error,
    responseBody: row.response_body,
    requestHeaders: row.request_headers === null ? null : (JSON.parse(row.request_headers) as Record<string, string>),
    requestBody: row.request_body,
  };
}

/** The events of one platform environment. */
export function scopedEvents(db: QueryCreator<Database>, scope: Pick<Scope, 'platformId' | 'environment'>) {
  return db
    .selectFrom('events')
    .where('events.platform_id', '=', scope.platformId)
    .where('events.environment', '=', scope.environment);
}

async function loadEvent(trx: Db | Tx, scope: Scope, eventId: string): Promise<EventsTable> {
  const row = await scopedEvents(trx, scope).selectAll().where('id', '=', eventId).executeTakeFirst();
  if (!row) throw notFound('Webhook event', eventId);
  return row;
}

export async function listEvents(
  db: Db,
  scope: Scope,
  f: WebhookEventFilters,
  page: PageRequest,
): Promise<Page<WebhookEvent>> {
  let q = scopedEvents(db, scope);
  if (f.type !== undefined) q = q.where('events.type', '=', f.type);
  if (f.objectId !== undefined) q = q.where('events.object_id', '=', f.objectId);
  if (f.deliveryState !== undefined)
    q = q.where('events.delivery_state', '=', f.deliveryState === 'FAILED' ? DELIVERY_FAILED : f.deliveryState);
  return mapPage(await keysetPage<EventsTable>(q, 'events', page), toEvent);
}

export async function getEvent(db: Db, scope: Scope, eventId: string): Promise<WebhookEvent> {
  const row = await loadEvent(db, scope, eventId);
  const attempts = await db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('event_id', '=', row.id)
    .orderBy('run')
    .orderBy('attempt')
    .execute();
  return { ...toEvent(row), attempts: attempts.map(toAttempt) };
}

/** What redelivery needs: the store and both clocks, and the worker to wake once the run is queued. */
export interface RedeliveryDeps {
  ctx: Ctx;
  realNow: () => number;
  worker: JobWorker;
}

/** Starts a fresh delivery run now, whatever the event's state; jobs of earlier runs become no-ops. */
export async function redeliverEvent(deps: RedeliveryDeps, scope: Scope, eventId: string): Promise<WebhookEvent> {
  const { ctx, realNow, worker } = deps;
  const event = await ctx.store.tx(async (trx) => {
    const row = await loadEvent(trx, scope, eventId);
    const run = row.delivery_run + 1n;
    const now = BigInt(scopeNowMs(ctx, scope));
    const updated = await trx
      .updateTable('events')
      .set({ delivery_state: 'PENDING', delivery_run: run, delivery_updated_at: now })
      .where('id', '=', row.id)
      .where('delivery_run', '=', row.delivery_run)
      .executeTakeFirst();
    if (updated.numUpdatedRows !== 1n)
      throw new AppError('CONFLICT', `Webhook event ${eventId} is being redelivered by another request`);
    const first = { eventId: row.id, objectId: row.object_id, run: Number(run), attempt: 1 };
    await enqueueDelivery(trx, scope, first, realNow());
    return toEvent({ ...row, delivery_state: 'PENDING', delivery_run: run, delivery_updated_at: now });
  });
  worker.kick();
  return event;
}
