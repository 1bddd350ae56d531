import { sql } from 'kysely';
import { newId } from '../domain/ids.ts';
import type { Db, Store, Tx } from '../store/db.ts';
import { deferInsert, deferUpdate } from '../store/deferred-writes.ts';
import { statement } from '../store/compiled.ts';
import type { JobsTable } from '../store/schema.ts';
import type { Scope } from '../context.ts';
import type { JobKind, JobPayloads } from './kinds.ts';

export type Job = JobsTable;

/**
 * Queues a job in the caller's transaction, due `delayMs` from now. run_at is wall-clock time: the
 * sandbox clock moves a platform's pending jobs earlier when it is advanced (see services/sandbox-clock).
 */
export async function enqueueJob<K extends JobKind>(
  trx: Tx,
  scope: Scope,
  kind: K,
  payload: JobPayloads[K],
  realNowMs: number,
  delayMs = 0,
  id: string = newId('Job'),
): Promise<string> {
  await deferInsert(trx, 'jobs', {
    id,
    platform_id: scope.platformId,
    environment: scope.environment,
    kind,
    payload: JSON.stringify(payload),
    status: 'pending',
    run_at: BigInt(realNowMs + delayMs),
    lease_until: null,
    attempts: 0n,
    last_error: null,
    created_at: BigInt(realNowMs),
    updated_at: BigInt(realNowMs),
  });
  return id;
}

/**
 * The id of the job an owner queues for itself and may call off (a quote's or an invitation's expiry): made
 * from the owner's id (or code), so calling it off needs no lookup and no column. An owner has at most one.
 */
export function ownedJobId(ownerId: string): string {
  return `Job:${ownerId.slice(ownerId.indexOf(':') + 1)}`;
}

/**
 * Queues the job `ownerId` owns (ownedJobId) unless it has one already: an owner that asks twice for the same
 * deadline (an incoming payment whose redelivered approval request is answered 202 again) keeps the first.
 * The caller holds the owner's row locked, so two such calls cannot both find none.
 */
export async function enqueueOwnedJob<K extends JobKind>(
  trx: Tx,
  scope: Scope,
  kind: K,
  payload: JobPayloads[K],
  realNowMs: number,
  delayMs: number,
  ownerId: string,
): Promise<void> {
  const id = ownedJobId(ownerId);
  if (!(await jobById.first(trx, { id }))) await enqueueJob(trx, scope, kind, payload, realNowMs, delayMs, id);
}

const jobById = statement((db, { id }: { id: string }) => db.selectFrom('jobs').select('id').where('id', '=', id));

/**
 * Calls off a job that has not started, in the caller's transaction: its owner no longer needs it (an
 * executed quote's expiry), so it is done without running. A job already claimed runs, and finds nothing to do.
 */
export function callOffJob(trx: Tx, id: string, realNowMs: number): Promise<void> {
  return deferUpdate(trx, { key: `jobs ${id}`, update: callOff, values: { id, at: BigInt(realNowMs) } });
}

const callOff = statement((db, { id, at }: { id: string; at: bigint }) =>
  db.updateTable('jobs').set({ status: 'done', updated_at: at }).where('id', '=', id).where('status', '=', 'pending'),
);

export interface ClaimFilter {
  /** One job by id (a caller that runs the job it just queued, see JobWorker.runNow). */
  id?: string;
  platformId?: string;
  environment?: string;
  /** Only these kinds (the worker while its outside lane is full claims database-only jobs alone). */
  kinds?: readonly string[];
}

/** What dueJobs selects by: a filter's field left undefined is left out of the statement. */
interface DueFilter {
  id?: string | undefined;
  platformId?: string | undefined;
  environment?: string | undefined;
  kinds: string[] | undefined;
  now: bigint;
  limit: number;
}

/** Due jobs, oldest first (on PostgreSQL, skipping those another process is claiming). */
const dueJobs = statement((db, v: DueFilter, engine) => {
  let due = db
    .selectFrom('jobs')
    .select('id')
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'pending'), eb('run_at', '<=', v.now)]),
        eb.and([eb('status', '=', 'running'), eb('lease_until', '<', v.now)]),
      ]),
    )
    .orderBy('run_at')
    .orderBy('id')
    .limit(v.limit);
  if (v.id !== undefined) due = due.where('id', '=', v.id);
  if (v.platformId !== undefined) due = due.where('platform_id', '=', v.platformId);
  if (v.environment !== undefined) due = due.where('environment', '=', v.environment as 'sandbox');
  if (v.kinds !== undefined) due = due.where('kind', 'in', v.kinds);
  return engine === 'postgres' ? due.forUpdate().skipLocked() : due;
});

interface LeaseValues {
  ids: string[];
  now: bigint;
  leaseUntil: bigint;
  /** Jobs of these kinds lease until `until` instead. */
  shorter: { kinds: readonly string[]; until: bigint } | undefined;
}

const leaseJobs = statement((db, v: LeaseValues) =>
  db
    .updateTable('jobs')
    .set((eb) => ({
      status: 'running',
      // Cast: PostgreSQL types the branches of a CASE from its parameters alone, as text.
      lease_until: v.shorter
        ? eb
            .case()
            .when('kind', 'in', v.shorter.kinds)
            .then(eb.cast<bigint>(eb.val(v.shorter.until), 'bigint'))
            .else(eb.cast<bigint>(eb.val(v.leaseUntil), 'bigint'))
            .end()
        : v.leaseUntil,
      attempts: eb('attempts', '+', 1n),
      updated_at: v.now,
    }))
    .where('id', 'in', v.ids)
    .returningAll(),
);

/** A lease of its own for some kinds of job (the worker's database-only jobs: see JobWorker). */
export interface ShorterLease {
  kinds: readonly string[];
  ms: number;
}

/**
 * Claims up to `limit` due jobs by leasing them: for `leaseMs`, or for `shorter.ms` if their kind is one of
 * `shorter.kinds`. On PostgreSQL `FOR UPDATE SKIP LOCKED` lets several server processes claim side by side
 * without ever taking the same job; on SQLite the write lock (BEGIN IMMEDIATE) already serializes claimers.
 * A job whose lease ran out (its process died) is due again.
 */
export async function claimJobs(
  store: Store,
  realNowMs: number,
  leaseMs: number,
  limit: number,
  filter: ClaimFilter = {},
  shorter?: ShorterLease,
): Promise<Job[]> {
  const now = BigInt(realNowMs);
  return store.tx(async (trx) => {
    const kinds = filter.kinds && (filter.kinds.length > 0 ? [...filter.kinds] : ['']);
    const due = await dueJobs.rows(trx, { ...filter, kinds, now, limit });
    if (due.length === 0) return [];
    const ids = due.map((r) => r.id);
    const leaseUntil = now + BigInt(leaseMs);
    const short =
      shorter && shorter.kinds.length > 0 ? { kinds: shorter.kinds, until: now + BigInt(shorter.ms) } : undefined;
    const claimed = await leaseJobs.rows(trx, { ids, now, leaseUntil, shorter: short });
    // RETURNING keeps no order; callers run jobs in the order they fell due (webhooks leave in order).
    return claimed.sort((a, b) => (a.run_at === b.run_at ? (a.id < b.id ? -1 : 1) : a.run_at < b.run_at ? -1 : 1));
  });
}

/**
 * Marks jobs done, in one statement, but only while this process's claims still stand: every claim counts
 * an attempt, so an `attempts` that moved on means another process re-claimed the job after our lease ran
 * out, and the job is theirs to finish. False when any of them is no longer ours.
 */
export async function completeJobs(db: Db | Tx, jobs: readonly Job[], realNowMs: number): Promise<boolean> {
  if (jobs.length === 0) return true;
  const result = await completion.run(db, completionOf(jobs, realNowMs));
  return result.numAffectedRows === BigInt(jobs.length);
}

/**
 * completeJobs for a handler that ends its own job in its transaction and has nothing to decide on whether
 * the claim still stood: the UPDATE rides in the transaction's last statement (store/deferred-writes.ts).
 */
export function completeJobLater(trx: Tx, job: Job, realNowMs: number): Promise<void> {
  return deferUpdate(trx, { key: `jobs ${job.id}`, update: completion, values: completionOf([job], realNowMs) });
}

interface Completion {
  claims: { id: string; attempts: bigint }[];
  at: bigint;
}

const completionOf = (jobs: readonly Job[], realNowMs: number): Completion => ({
  claims: jobs.map(({ id, attempts }) => ({ id, attempts })),
  at: BigInt(realNowMs),
});

const completion = statement((db, { claims, at }: Completion) =>
  db
    .updateTable('jobs')
    .set({ status: 'done', lease_until: null, updated_at: at })
    .where('status', '=', 'running')
    .where((eb) => eb.or(claims.map((c) => eb.and([eb('id', '=', c.id), eb('attempts', '=', c.attempts)])))),
);

/**
 * Puts a job whose work is not due yet back for `runAtMs`, in the caller's transaction, while this
 * process's claim stands. The claim's attempt is given back: waiting is not trying.
 */
export async function deferJob(db: Db | Tx, job: Job, runAtMs: number, realNowMs: number): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({
      status: 'pending',
      run_at: BigInt(runAtMs),
      lease_until: null,
      attempts: job.attempts - 1n,
      updated_at: BigInt(realNowMs),
    })
    .where('id', '=', job.id)
    .where('status', '=', 'running')
    .where('attempts', '=', job.attempts)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Puts a failed job back with a delay, or gives up on it for good after its last attempt. */
export async function failJob(
  store: Store,
  job: Job,
  error: string,
  realNowMs: number,
  retryInMs: number | null,
): Promise<void> {
  await store.db
    .updateTable('jobs')
    .set({
      status: retryInMs === null ? 'failed' : 'pending',
      run_at: BigInt(realNowMs + (retryInMs ?? 0)),
      lease_until: null,
      last_error: error.slice(0, 2000),
      updated_at: BigInt(realNowMs),
    })
    .where('id', '=', job.id)
    .where('status', '=', 'running')
    .where('attempts', '=', job.attempts)
    .execute();
}

/**
 * Extends a claimed job's lease, only if the lease is still the one this process holds (a job whose
 * lease ran out may already be claimed by another process, with a new lease_until). Returns false
 * when the job is no longer ours. A claimed outside job may wait its turn in the worker's lane, so a handler
 * about to do slow, non-repeatable work (a webhook POST) renews first rather than trusting the claim's lease.
 */
export async function renewLease(store: Store, job: Job, realNowMs: number, leaseMs: number): Promise<boolean> {
  if (job.lease_until === null) return false;
  const until = BigInt(realNowMs + leaseMs);
  const result = await store.db
    .updateTable('jobs')
    .set({ lease_until: until, updated_at: BigInt(realNowMs) })
    .where('id', '=', job.id)
    .where('status', '=', 'running')
    // Equal means no one re-claimed it, even if it ran out a moment ago: a claim always sets a new lease.
    .where('lease_until', '=', job.lease_until)
    .executeTakeFirst();
  if (result.numUpdatedRows !== 1n) return false;
  job.lease_until = until;
  return true;
}

/** How long finished jobs are kept before upkeep purges them (by when they finished, wall-clock). */
export interface PurgeKeeping {
  doneMs: number;
  failedMs: number;
}

/** One statement deletes at most `batch` jobs; one pass runs at most `batches` of them for each status. */
export interface PurgeLimits {
  batch: number;
  batches: number;
}

/**
 * A pass of short transactions that a worker's upkeep runs every 15 s: at steady state it deletes what
 * 15 s of traffic finished; a backlog (an upgrade over months of done jobs) is worked off over several passes
 * without holding the worker's pass up for long. 40,000 jobs a minute is more than the service queues.
 */
const PURGE_LIMITS: PurgeLimits = { batch: 1_000, batches: 10 };

/**
 * Deletes done jobs that finished more than `keep.doneMs` ago and failed ones past `keep.failedMs`; a pending
 * or running job is never touched. Nothing reads a finished job once its keeping time is over: the payment,
 * the event and its delivery attempts hold the outcome. Safe in several processes at once (on PostgreSQL
 * each skips the rows another is deleting). Returns how many jobs were deleted.
 */
export async function purgeFinishedJobs(
  store: Store,
  realNowMs: number,
  keep: PurgeKeeping,
  limits: PurgeLimits = PURGE_LIMITS,
): Promise<number> {
  const cutoffs = [
    ['done', BigInt(realNowMs - keep.doneMs)],
    ['failed', BigInt(realNowMs - keep.failedMs)],
  ] as const;
  let removed = 0;
  for (const [status, cutoff] of cutoffs) {
    for (let pass = 0; pass < limits.batches; pass++) {
      const count = await store.tx(async (trx) => {
        // run_at <= updated_at for a finished job (it ran once due; a final failure stamps both), so
        // `run_at < cutoff` lets jobs_due (status, run_at) find them; updated_at decides.
        let finished = trx
          .selectFrom('jobs')
          .select('id')
          .where('status', '=', status)
          .where('run_at', '<', cutoff)
          .where('updated_at', '<', cutoff)
          .limit(limits.batch);
        if (store.engine === 'postgres') finished = finished.forUpdate().skipLocked();
        // Two statements, not `id IN (subquery)`: PostgreSQL may run a SKIP LOCKED subquery more than once
        // in one DELETE, each time finding other rows, and so delete more than a batch.
        const ids = (await finished.execute()).map((r) => r.id);
        if (ids.length === 0) return 0;
        const result = await trx.deleteFrom('jobs').where('id', 'in', ids).executeTakeFirst();
        return Number(result.numDeletedRows);
      });
      removed += count;
      if (count < limits.batch) break;
    }
  }
  return removed;
}

/**
 * PostgreSQL only. A claim moves its job out of `pending`, its completion out of `running`: updates of an
 * indexed column, each leaving the old index entry behind until VACUUM. The claim's scan walks every entry
 * left since the last vacuum, so without one a claim costs more with every job the queue has run; the
 * server's autovacuum comes by when a fifth of the table is dead, which for an hour of done jobs is far too
 * rarely (test/jobs/queue-vacuum.test.ts). INDEX_CLEANUP ON: below 2 % of pages PostgreSQL would otherwise
 * skip the indexes, the very part the claim reads. SKIP_LOCKED: another process already vacuuming is enough.
 * A database user that does not own the table gets a warning, not an error, and the queue works as before.
 */
export async function vacuumJobs(store: Store): Promise<void> {
  await sql`vacuum (skip_locked, index_cleanup on) jobs`.execute(store.db);
}
