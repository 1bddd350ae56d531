/**
 * The `webhook.deliver` job: one attempt of one event's delivery run. Nothing here runs inside a database
 * transaction while it waits on the network: an attempt reads (due-event.ts), posts (sign-and-post.ts),
 * then records the outcome (and queues the next attempt) in one short transaction.
 *
 * At least once, in order per object (object-order.ts). Several processes never send the same attempt
 * twice: the job claim (lease longer than the HTTP timeout) gives each job to one process, and an attempt
 * that was already recorded is never sent again.
 */
import type { Logger } from 'pino';
import type { WebhookAnswer } from '../domain/incoming-payments.ts';
import { type DeliverPayload, FINISHED_HERE, type FinishedHere, type RunAgainAt, runAgainAt } from '../jobs/kinds.ts';
import { completeJobLater, renewLease, type Job } from '../jobs/queue.ts';
import type { JobWorker } from '../jobs/worker.ts';
import { scopeNowMs, type Scope } from '../context.ts';
import { isUniqueViolation, type Db, type Tx } from '../store/db.ts';
import { deferInsert, deferUpdate } from '../store/deferred-writes.ts';
import { statement } from '../store/compiled.ts';
import type { DeliveryState, EventsTable } from '../store/schema.ts';
import { dueEvent } from './due-event.ts';
import { healthChange, reportEndpointHealth } from './endpoint-health.ts';
import { sentIn } from './envelope.ts';
import { enqueueDelivery } from './events.ts';
import { deliveryOrderKey, ORDER_WAIT_MS } from './object-order.ts';
import { type DeliveryStep, nextStep, retryPolicyOf } from './schedule.ts';
import { signAndPost, type PostDeps, type SendResult } from './sign-and-post.ts';

/** Lease held over one POST: its timeout plus room to record the outcome. */
const LEASE_MARGIN_MS = 30_000;

/**
 * What the sender of an event type does with the receiver's answer (the incoming-payment approval). It
 * runs in the transaction that records the run's final attempt (or its NO_ENDPOINT state), so the answer
 * and its effects commit together; it must be idempotent, since a redelivery answers again.
 */
export type AnswerHandler = (trx: Tx, scope: Scope, event: EventsTable, answer: WebhookAnswer) => Promise<void>;

/** What an attempt needs besides signing and posting. */
export interface DeliveryDeps extends PostDeps {
  db: Db;
  answerHandlers: ReadonlyMap<string, AnswerHandler>;
  log: Logger;
  random: () => number;
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

/** Hands the worker the delivery job; one object's deliveries run one after another, others side by side. */
export function registerDeliveryJob(worker: JobWorker, deps: DeliveryDeps): void {
  worker.register('webhook.deliver', (payload, job, scope) => deliver(deps, payload, job, scope), deliveryOrderKey);
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
async function deliver(
  deps: DeliveryDeps,
  payload: DeliverPayload,
  job: Job,
  scope: Scope,
): Promise<void | RunAgainAt | FinishedHere> {
  const { ctx, realNow, answerHandlers, log, random } = deps;
  const due = await dueEvent(deps.db, payload, scope);
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
  const result = await signAndPost(deps, scope, { id: event.id, type: event.type, data }, envelope, url);
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
async function recordAttempt(deps: DeliveryDeps, trx: Tx, attempt: AttemptRecord): Promise<void> {
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
  await reportEndpointHealth(trx, scope, healthChange(step, attempt.failing), attempt.doneAtMs);
}
