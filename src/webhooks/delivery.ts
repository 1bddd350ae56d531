/**
 * Webhook delivery: the `webhook.deliver` job handler, redelivery, the delivery log, and the
 * synchronous test webhook. Nothing here runs inside a database transaction while it waits on the
 * network: a delivery reads, posts, then records the outcome (and queues the next attempt) in one
 * short transaction.
 *
 * At least once, in order per object: an event waits while an earlier event of the same object in the
 * same scope is still PENDING. Several processes never send the same attempt twice: the job claim
 * (lease longer than the HTTP timeout) gives each job to one process, and an attempt that was already
 * recorded is never sent again.
 */
import type { Logger } from 'pino';
import { sql, type QueryCreator } from 'kysely';
import { iso } from '../domain/clock.ts';
import { AppError, notFound } from '../domain/errors.ts';
import type { WebhookAnswer } from '../domain/incoming-payments.ts';
import { newId } from '../domain/ids.ts';
import { completeJobLater, renewLease, type Job } from '../jobs/queue.ts';
import type { JobWorker } from '../jobs/worker.ts';
import { scopeNowMs, type Ctx, type Scope, wallNowMs } from '../context.ts';
import { getPlatformConfig } from '../platforms.ts';
import { isUniqueViolation, type Db, type Tx } from '../store/db.ts';
import { deferInsert, deferUpdate } from '../store/deferred-writes.ts';
import { statement } from '../store/compiled.ts';
import { keysetPage, mapPage } from '../store/paging.ts';
import type { Page, PageRequest } from '../domain/paging.ts';
import type { Database, DeliveryState, EventsTable, WebhookAttemptsTable, WebhookEnvelope } from '../store/schema.ts';
import { buildEnvelope, type EnvelopeEvent, sentIn } from './envelope.ts';
import { enqueueDelivery } from './events.ts';
import { type DeliverPayload, FINISHED_HERE, type FinishedHere, type RunAgainAt, runAgainAt } from '../jobs/kinds.ts';
import { makeKeyStore } from './keys.ts';
import { type DeliveryStep, nextStep, retryPolicyOf } from './schedule.ts';
import { standardPublicKey, webhookHeaders } from './signing.ts';
import { postWebhook, type PostResult } from './transport.ts';
import { checkWebhookUrl, publicTargetsOnly } from './url.ts';

/** How soon an event that waits behind an earlier one of the same object looks again (wall clock). */
export const ORDER_WAIT_MS = 1000;

/** Lease held over one POST: its timeout plus room to record the outcome. */
const LEASE_MARGIN_MS = 30_000;

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
 * What the sender of an event type does with the receiver's answer (the incoming-payment approval). It
 * runs in the transaction that records the run's final attempt (or its NO_ENDPOINT state), so the answer
 * and its effects commit together; it must be idempotent, since a redelivery answers again.
 */
export type AnswerHandler = (trx: Tx, scope: Scope, event: EventsTable, answer: WebhookAnswer) => Promise<void>;

export interface TestWebhookResult {
  url: string;
  response_status: number;
  response_body: string;
}

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

function scopedEvents(db: QueryCreator<Database>, scope: Pick<Scope, 'platformId' | 'environment'>) {
  return db
    .selectFrom('events')
    .where('events.platform_id', '=', scope.platformId)
    .where('events.environment', '=', scope.environment);
}

/** One attempt as it is recorded: what was sent where, what came back, and what follows. */
interface AttemptRecord {
  scope: Scope;
  event: EventsTable;
  payload: DeliverPayload;
  url: string;
  result: SendResult;
  step: DeliveryStep;
  /** The run's first attempt (scope time), carried to the retry for its window. */
  since: number;
  doneAtMs: number;
  /** Whether the endpoint was reported failing when the attempt began. */
  failing: boolean;
}

/** What an attempt sent (the exact body and headers) and what came back. */
type SendResult = PostResult & { sentAtMs: number; requestBody: string; requestHeaders: Record<string, string> };

/**
 * Serializes the envelope once and signs and sends those exact bytes. The envelope's timestamp is
 * scope time (the sandbox clock); webhook-timestamp is real time, since receivers compare it with
 * their own clock to refuse replays. Answers the body and headers as sent, for the attempt's record: they
 * cannot be rebuilt later (the envelope in effect, the real-time header, randomized ECDSA signatures).
 */
async function send(
  deps: WebhookDeps,
  scope: Scope,
  event: EnvelopeEvent,
  envelope: WebhookEnvelope,
  url: string,
): Promise<SendResult> {
  const { ctx, keyStore, realNow } = deps;
  const keys = await keyStore.keysOf(scope);
  const sentAtMs = scopeNowMs(ctx, scope);
  const body = Buffer.from(JSON.stringify(buildEnvelope(event, envelope, iso(sentAtMs))));
  const headers = webhookHeaders(keys, event.id, Math.floor(realNow() / 1000), body, event.type);
  const publicOnly = publicTargetsOnly(ctx.config, scope.environment);
  const timeoutMs = ctx.config.webhookTimeoutMs;
  const posted = await postWebhook({ url, body, headers, timeoutMs, clockMs: realNow, publicOnly });
  return { sentAtMs, requestBody: body.toString('utf8'), requestHeaders: headers, ...posted };
}

/** Moves a PENDING event of the given run to its final state; a stale run changes nothing. */
async function settle(trx: Tx, event: EventsTable, run: number, state: DeliveryState, atMs: number): Promise<boolean> {
  const result = await settling.run(trx, settlingOf(event, run, state, atMs));
  return result.numAffectedRows === 1n;
}

/** settle, for a caller that does not need to know whether the run was still current: in the last statement. */
function settleLater(trx: Tx, event: EventsTable, run: number, state: DeliveryState, atMs: number): Promise<void> {
  const values = settlingOf(event, run, state, atMs);
  return deferUpdate(trx, { key: `events ${event.id}`, update: settling, values });
}

interface Settling {
  id: string;
  run: bigint;
  state: DeliveryState;
  at: bigint;
}

const settlingOf = (event: EventsTable, run: number, state: DeliveryState, atMs: number): Settling => ({
  id: event.id,
  run: BigInt(run),
  state,
  at: BigInt(atMs),
});

const settling = statement((db, v: Settling) =>
  db
    .updateTable('events')
    .set({ delivery_state: v.state, delivery_updated_at: v.at })
    .where('id', '=', v.id)
    .where('delivery_state', '=', 'PENDING')
    .where('delivery_run', '=', v.run),
);

/** The event a delivery job acts on, with the platform's webhook settings as they are at the attempt. */
interface DueEvent {
  event: EventsTable;
  endpoint: string | null;
  envelope: WebhookEnvelope;
  /** Whether the endpoint is reported failing now (only then does a success have a report to clear). */
  failing: boolean;
}

/**
 * The event this job should send now, 'WAIT' when an earlier event of the same object is still pending
 * (the receiver must see an object's changes in order), or undefined when there is nothing left to do.
 * One statement: the event, whether this attempt is already recorded, whether an earlier event of its
 * object waits, and the settings the attempt uses (every delivery of every event asks all four).
 */
async function dueEvent(
  deps: WebhookDeps,
  payload: DeliverPayload,
  scope: Scope,
): Promise<DueEvent | 'WAIT' | undefined> {
  const row = await dueEventRow.first(deps.db, {
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
      eb
        .exists(
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
                e.and([
                  e('earlier.created_at', '=', e.ref('events.created_at')),
                  e('earlier.id', '<', e.ref('events.id')),
                ]),
              ]),
            ),
        )
        .as('waiting'),
    ])
    .where('events.id', '=', v.eventId),
);

/** EXISTS answers a boolean on PostgreSQL and 0 or 1 on SQLite. */
const truthy = (value: unknown): boolean => value === true || value === 1n || value === 1;

async function deliver(
  deps: WebhookDeps,
  payload: DeliverPayload,
  job: Job,
  scope: Scope,
): Promise<void | RunAgainAt | FinishedHere> {
  const { ctx, realNow, answerHandlers, log, random } = deps;
  const due = await dueEvent(deps, payload, scope);
  if (due === undefined) return undefined;
  // Waiting spends no attempt: the job comes back after the earlier event had its chance.
  if (due === 'WAIT') return runAgainAt(realNow() + ORDER_WAIT_MS);
  const { event, envelope } = due;
  // Decided at the attempt, like the endpoint: the envelope in effect then is the one that would be sent.
  if (!sentIn(event.type, envelope)) {
    await ctx.store.tx((trx) => settle(trx, event, payload.run, 'NOT_IN_ENVELOPE', scopeNowMs(ctx, scope)));
    return undefined;
  }
  const url = due.endpoint;
  if (!url) {
    await ctx.store.tx(async (trx) => {
      const settled = await settle(trx, event, payload.run, 'NO_ENDPOINT', scopeNowMs(ctx, scope));
      if (settled) await answerHandlers.get(event.type)?.(trx, scope, event, { kind: 'NO_ENDPOINT' });
    });
    return undefined;
  }
  // The claim's lease may have run low while the job waited its turn in the worker's outside lane (behind
  // its object's earlier events, or a full lane); if another process has
  // taken the job since, it makes this attempt and we must not. A lease that still covers the POST
  // and its record needs no renewing: no other process can claim the job before it runs out.
  const leaseMs = ctx.config.webhookTimeoutMs + LEASE_MARGIN_MS;
  const leaseLeftMs = job.lease_until === null ? 0 : Number(job.lease_until) - realNow();
  if (leaseLeftMs < leaseMs && !(await renewLease(ctx.store, job, realNow(), leaseMs))) return undefined;
  const data = JSON.parse(event.data) as unknown;
  const result = await send(deps, scope, { id: event.id, type: event.type, data }, envelope, url);
  const since = payload.since ?? result.sentAtMs;
  const doneAtMs = scopeNowMs(ctx, scope);
  const outcome = { status: result.status, attempt: payload.attempt, elapsedMs: doneAtMs - since };
  const step = nextStep(outcome, retryPolicyOf(event.type), random);
  const record = { scope, event, payload, url, result, step, since, doneAtMs, failing: due.failing };
  try {
    // The attempt, what follows from it and the end of this job commit together: one transaction.
    await ctx.store.tx(async (trx) => {
      await recordAttempt(deps, trx, record);
      await completeJobLater(trx, job, realNow());
    });
  } catch (err) {
    // Another process recorded this very attempt (it cannot have sent it: the job was ours); keep theirs.
    if (isUniqueViolation(err)) return undefined;
    throw err;
  }
  if (step.kind === 'FAILED' && step.windowOver) {
    const { platformId, environment } = scope;
    const context = { eventId: event.id, type: event.type, platformId, environment, url, attempts: payload.attempt };
    log.error(context, 'webhook endpoint failing: event gave up after the retry window');
  }
  return FINISHED_HERE;
}

/** Records the attempt and what follows from it (the retry, or the end of the run and its answer). */
async function recordAttempt(deps: WebhookDeps, trx: Tx, attempt: AttemptRecord): Promise<void> {
  const { realNow, answerHandlers } = deps;
  const { scope, event, payload, url, result, step } = attempt;
  const acknowledged = step.kind === 'DELIVERED';
  const error =
    result.error ?? (acknowledged ? null : result.status === null ? 'no answer' : `answered ${result.status}`);
  await deferInsert(trx, 'webhook_attempts', {
    event_id: event.id,
    run: BigInt(payload.run),
    attempt: BigInt(payload.attempt),
    url,
    started_at: BigInt(result.sentAtMs),
    status_code: result.status === null ? null : BigInt(result.status),
    latency_ms: BigInt(Math.max(0, Math.round(result.latencyMs))),
    error,
    response_body: result.body,
    request_headers: JSON.stringify(result.requestHeaders),
    request_body: result.requestBody,
  });
  if (step.kind === 'RETRY') {
    const next = {
      eventId: event.id,
      objectId: event.object_id,
      run: payload.run,
      attempt: payload.attempt + 1,
      since: attempt.since,
    };
    await enqueueDelivery(trx, scope, next, realNow(), step.inMs);
    return;
  }
  await settleLater(trx, event, payload.run, acknowledged ? 'DELIVERED' : 'FAILED', attempt.doneAtMs);
  const answer: WebhookAnswer =
    result.status === null
      ? { kind: 'NO_ANSWER', error: result.error ?? 'no answer' }
      : { kind: 'ANSWERED', status: result.status, body: result.body };
  await answerHandlers.get(event.type)?.(trx, scope, event, answer);
  await reportEndpointHealth(trx, scope, step, attempt);
}

/**
 * The endpoint's failure report: set when an event runs out of retries, cleared by the next success. A
 * success clears only a report that was there when its attempt began: one set since then came from a
 * failure that ends after this success, and stands until the next one.
 */
async function reportEndpointHealth(
  trx: Tx,
  scope: Scope,
  step: DeliveryStep,
  { doneAtMs: atMs, failing }: AttemptRecord,
): Promise<void> {
  const configs = trx
    .updateTable('platform_configs')
    .where('platform_id', '=', scope.platformId)
    .where('environment', '=', scope.environment);
  if (step.kind === 'DELIVERED' && failing)
    await configs.set({ webhook_failing_since: null }).where('webhook_failing_since', 'is not', null).execute();
  if (step.kind === 'FAILED' && step.windowOver)
    await configs
      .set({ webhook_failing_since: BigInt(atMs) })
      .where('webhook_failing_since', 'is', null)
      .execute();
}

async function loadEvent(trx: Db | Tx, scope: Scope, eventId: string): Promise<EventsTable> {
  const row = await scopedEvents(trx, scope).selectAll().where('id', '=', eventId).executeTakeFirst();
  if (!row) throw notFound('Webhook event', eventId);
  return row;
}

/** Lets the sender of `eventType` act on what receivers answer (see AnswerHandler); one per type. */
function registerAnswerHandler(deps: WebhookDeps, eventType: string, handler: AnswerHandler): void {
  const { answerHandlers } = deps;
  if (answerHandlers.has(eventType)) throw new Error(`answer handler for ${eventType} registered twice`);
  answerHandlers.set(eventType, handler);
}

/** The two public keys a receiver verifies with, as GET /config publishes them. */
async function publicKeysOf(
  deps: WebhookDeps,
  scope: Scope,
): Promise<{ webhookPublicKey: string; webhookStandardPublicKey: string }> {
  const { keyStore } = deps;
  const keys = await keyStore.keysOf(scope);
  return {
    webhookPublicKey: keys.ecdsaPublicKeyPem,
    webhookStandardPublicKey: standardPublicKey(keys.ed25519PublicKeyPem),
  };
}

/**
 * `delivery_state = 'FAILED'` with the state as a literal: only then can either planner use the partial
 * index of failed deliveries (migration 020), which finds them without reading the platform's other events.
 */
export const DELIVERY_FAILED = sql.lit<DeliveryState>('FAILED');

async function listEvents(
  deps: WebhookDeps,
  scope: Scope,
  f: WebhookEventFilters,
  page: PageRequest,
): Promise<Page<WebhookEvent>> {
  const { db } = deps;
  let q = scopedEvents(db, scope);
  if (f.type !== undefined) q = q.where('events.type', '=', f.type);
  if (f.objectId !== undefined) q = q.where('events.object_id', '=', f.objectId);
  if (f.deliveryState !== undefined)
    q = q.where('events.delivery_state', '=', f.deliveryState === 'FAILED' ? DELIVERY_FAILED : f.deliveryState);
  return mapPage(await keysetPage<EventsTable>(q, 'events', page), toEvent);
}

async function getEvent(deps: WebhookDeps, scope: Scope, eventId: string): Promise<WebhookEvent> {
  const { db } = deps;
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

/** Starts a fresh delivery run now, whatever the event's state; jobs of earlier runs become no-ops. */
async function redeliverEvent(deps: WebhookDeps, scope: Scope, eventId: string): Promise<WebhookEvent> {
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

/**
 * Sends a TEST webhook now and reports what the receiver answered. Not an event row, not retried.
 * A 2xx is success; any other answer, or none, is a 400 WEBHOOK_DELIVERY_ERROR whose details carry
 * the receiver's status and body (or the connection error).
 */
async function sendTestWebhook(
  deps: WebhookDeps,
  scope: Scope,
  targetUrl: string | undefined,
): Promise<TestWebhookResult> {
  const { ctx } = deps;
  const config = await getPlatformConfig(ctx, scope);
  const url =
    targetUrl !== undefined
      ? checkWebhookUrl(targetUrl, scope.environment, 'url', publicTargetsOnly(ctx.config, scope.environment))
      : config.webhookEndpoint;
  if (!url)
    throw new AppError(
      'WEBHOOK_ENDPOINT_NOT_SET',
      'No webhook endpoint is configured; set webhookEndpoint with PATCH /config or give a url',
    );
  const result = await send(deps, scope, { id: newId('Webhook'), type: 'TEST', data: {} }, config.webhookEnvelope, url);
  if (result.status === null) {
    throw new AppError('WEBHOOK_DELIVERY_ERROR', `The test webhook could not be delivered: ${result.error}`, {
      url,
      error: result.error,
    });
  }
  const answer = { url, response_status: result.status, response_body: result.body ?? '' };
  if (result.status < 200 || result.status >= 300) {
    throw new AppError('WEBHOOK_DELIVERY_ERROR', `The webhook endpoint answered ${result.status}`, answer);
  }
  return answer;
}

/** What delivery and the event log share: built once by makeWebhookService. */
interface WebhookDeps {
  ctx: Ctx;
  db: Db;
  keyStore: ReturnType<typeof makeKeyStore>;
  realNow: () => number;
  answerHandlers: Map<string, AnswerHandler>;
  log: Logger;
  random: () => number;
  worker: JobWorker;
}

export interface WebhookService {
  /** Lets the sender of `eventType` act on what receivers answer (see AnswerHandler); one per type. */
  onAnswer(eventType: string, handler: AnswerHandler): void;
  /** The two public keys a receiver verifies with, as GET /config publishes them. */
  publicKeys(scope: Scope): Promise<{ webhookPublicKey: string; webhookStandardPublicKey: string }>;
  /** A page of the delivery log. */
  list(scope: Scope, filters: WebhookEventFilters, page: PageRequest): Promise<Page<WebhookEvent>>;
  /** One event with every attempt. Raises NOT_FOUND. */
  get(scope: Scope, eventId: string): Promise<WebhookEvent>;
  /** Starts a fresh delivery run now. Raises NOT_FOUND, CONFLICT. */
  redeliver(scope: Scope, eventId: string): Promise<WebhookEvent>;
  /** Sends a TEST webhook and reports the answer. Raises INVALID_INPUT, WEBHOOK_DELIVERY_ERROR. */
  sendTest(scope: Scope, targetUrl: string | undefined): Promise<TestWebhookResult>;
}

export function makeWebhookService(
  ctx: Ctx,
  worker: JobWorker,
  log: Logger,
  random: () => number = Math.random,
): WebhookService {
  const deps: WebhookDeps = {
    ctx,
    // Read at each use: inside an ambient transaction (an idempotent request) the log sees what it wrote.
    get db() {
      return ctx.store.db;
    },
    keyStore: makeKeyStore(ctx),
    realNow: () => wallNowMs(ctx),
    answerHandlers: new Map<string, AnswerHandler>(),
    log,
    random,
    worker,
  };
  // One object's deliveries run one after another (its events leave in order); other objects' side by side.
  const orderKey = (payload: DeliverPayload) => payload.objectId ?? payload.eventId;
  worker.register('webhook.deliver', (payload, job, scope) => deliver(deps, payload, job, scope), orderKey);
  return {
    onAnswer: (eventType, handler) => registerAnswerHandler(deps, eventType, handler),
    publicKeys: (scope) => publicKeysOf(deps, scope),
    list: (scope, filters, page) => listEvents(deps, scope, filters, page),
    get: (scope, eventId) => getEvent(deps, scope, eventId),
    redeliver: (scope, eventId) => redeliverEvent(deps, scope, eventId),
    sendTest: (scope, targetUrl) => sendTestWebhook(deps, scope, targetUrl),
  };
}
