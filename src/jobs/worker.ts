import type { Clock } from '../domain/clock.ts';
import { detached, type Store, type Tx } from '../store/db.ts';
import { databaseUnavailable } from '../store/unavailable.ts';
import type { Scope } from '../context.ts';
import type { FinishedHere, JobKind, JobPayloads, RunAgainAt } from './kinds.ts';
import { OutsideLane } from './outside-lane.ts';
import {
  claimJobs,
  completeJobs,
  deferJob,
  failJob,
  purgeFinishedJobs,
  vacuumJobs,
  type ClaimFilter,
  type Job,
  type PurgeKeeping,
} from './queue.ts';

/**
 * Handles one job, given its payload decoded once by the worker. Handlers must be idempotent: a job whose
 * process died mid-way is run again once its lease runs out. State-guarded updates
 * (`WHERE status IN (...)`) make that safe. Answering RunAgainAt puts the job back for later.
 */
export type JobHandler<K extends JobKind> = (
  payload: JobPayloads[K],
  job: Job,
  scope: Scope,
) => Promise<void | RunAgainAt | FinishedHere>;

/** A handler whose work is database work only: it runs in the transaction that also marks the job done. */
export type TransactionalJobHandler<K extends JobKind> = (
  trx: Tx,
  payload: JobPayloads[K],
  job: Job,
  scope: Scope,
) => Promise<void | RunAgainAt>;

type Registered =
  | { inTransaction: false; run: JobHandler<JobKind>; orderKey?: (payload: JobPayloads[JobKind]) => string }
  | { inTransaction: true; run: TransactionalJobHandler<JobKind>; together?: GroupPreparer<JobKind> | undefined };

/**
 * Run once for the jobs of one kind in a group, before any of them, in the group's transaction: what each
 * job would read on its own is read for all in one statement (the rail steps lock their payments together).
 */
export type GroupPreparer<K extends JobKind> = (trx: Tx, payloads: JobPayloads[K][]) => Promise<void>;

export interface WorkerOptions {
  pollMs: number;
  /** How long a claim of an outside job (a webhook POST) holds before another process may take the job. */
  leaseMs: number;
  /**
   * The same for a database-only job (a rail step), shorter: its work and its completion commit together, so
   * another process that takes it early only finds its own run undone (the claim check), never the work done
   * twice. A process that died mid-step holds its steps for this long instead of `leaseMs`. It must outlast a
   * group's wait for a pooled connection and its transaction.
   */
  transactionalLeaseMs?: number;
  batchSize: number;
  /**
   * Groups of database-only jobs running at once (each a transaction, on PostgreSQL a pooled connection):
   * a bound below the pool's size leaves the API connections whatever backlog falls due. Unbounded if unset.
   */
  groupsAtOnce?: number;
  maxAttempts: number;
  /** Outside jobs (webhook POSTs) running at once in this process, and at once for one platform environment. */
  outsideLimit?: number;
  outsidePerScope?: number;
  /** Loads a scope with its sandbox clock offset, for handlers that stamp times. */
  scopeOf(platformId: string, environment: string): Promise<Scope>;
}

export interface Logger {
  error(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
}

/** Where the worker counts what it did (the app's Prometheus counter). */
export interface JobCounter {
  inc(labels: { kind: string; outcome: 'done' | 'deferred' | 'retry' | 'failed' }): void;
}

/** How often each worker process purges finished jobs past their keeping time (bounded batches each time). */
const JOB_PURGE_EVERY_MS = 15_000;

/**
 * Database-only jobs (rail steps) that share one database transaction: fewer BEGIN/COMMIT round trips and
 * commits per job, while each group still holds its row locks only briefly.
 */
const JOBS_PER_TRANSACTION = 10;

/** Longest pause between two passes while the database is away: how soon the worker notices it is back. */
const OUTAGE_BACKOFF_MAX_MS = 5_000;

/** Bounded retry backoff for a handler that threw: 1 s, 2 s, 4 s … capped at 5 minutes. */
export function retryDelayMs(attempts: number): number {
  return Math.min(1000 * 2 ** Math.max(0, attempts - 1), 5 * 60_000);
}

export class JobWorker {
  private readonly handlers = new Map<string, Registered>();
  /** The kinds registered as database-only jobs, kept as they are registered (each pass's claim reads them). */
  private readonly kindsInTx: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private stopped = true;
  private current: Promise<unknown> = Promise.resolve();
  /** Upkeep run after a background pass whenever `due` says so (see every, vacuumAfterClaims). */
  private readonly chores: { due: (nowMs: number) => boolean; run: () => Promise<unknown> }[] = [];
  /** Jobs this process has claimed since it started. */
  private claimed = 0;
  /** Passes in a row that found the database away (0: it is there). */
  private outagePasses = 0;
  /** Jobs this process claimed whose outcome the database went away before it could be written. */
  private readonly stranded: Job[] = [];
  private readonly outsideLane: OutsideLane;
  /** The last background pass left outside jobs unclaimed because the lane was full. */
  private outsideHeldBack = false;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly options: WorkerOptions,
    private readonly counter?: JobCounter,
  ) {
    const limit = options.outsideLimit ?? 32;
    const perScope = options.outsidePerScope ?? Math.max(1, limit / 2);
    this.outsideLane = new OutsideLane(limit, perScope, () => this.laneHasRoom());
  }

  /**
   * A handler that talks to the outside world (webhook delivery): it runs outside any transaction, side by
   * side with others (see OutsideLane). Jobs of one kind whose payloads give the same `orderKey` (in one
   * platform environment) run one after another, in the order they fell due.
   */
  register<K extends JobKind>(kind: K, handler: JobHandler<K>, orderKey?: (payload: JobPayloads[K]) => string): void {
    const key = orderKey as ((payload: JobPayloads[JobKind]) => string) | undefined;
    this.add(kind, { inTransaction: false, run: handler as JobHandler<JobKind>, ...(key ? { orderKey: key } : {}) });
  }

  /**
   * A handler that only changes the database: its changes and the job's completion commit together, so
   * its effects happen exactly once even if the process dies right after.
   */
  registerInTransaction<K extends JobKind>(
    kind: K,
    handler: TransactionalJobHandler<K>,
    together?: GroupPreparer<K>,
  ): void {
    const run = handler as TransactionalJobHandler<JobKind>;
    this.add(kind, { inTransaction: true, run, together: together as GroupPreparer<JobKind> | undefined });
  }

  /**
   * Upkeep that belongs to no job (purging rows past their keeping time): each worker process runs it
   * after a pass, at most once per interval. It must be safe to run in several processes at once.
   */
  every(intervalMs: number, run: () => Promise<unknown>): void {
    let nextAtMs = 0;
    this.chores.push({
      due: (nowMs) => nowMs >= nextAtMs,
      run: () => {
        nextAtMs = this.clock.nowMs() + intervalMs;
        return run();
      },
    });
  }

  /**
   * Vacuums the job table (PostgreSQL: see vacuumJobs) once this process has claimed `claims` jobs since its
   * last vacuum, so that the work a claim walks past stays bounded by what a few thousand jobs leave.
   */
  vacuumAfterClaims(claims: number): void {
    let claimedAtLast = 0;
    this.chores.push({
      due: () => this.claimed - claimedAtLast >= claims,
      run: () => {
        claimedAtLast = this.claimed;
        return vacuumJobs(this.store);
      },
    });
  }

  /**
   * Purges done and failed jobs once their keeping time is over (see purgeFinishedJobs): without it every
   * job ever run would stay in the table, one or more per payment and one per webhook event.
   */
  purgeFinishedAfter(keep: PurgeKeeping): void {
    this.every(JOB_PURGE_EVERY_MS, () => purgeFinishedJobs(this.store, this.clock.nowMs(), keep));
  }

  private async runChores(): Promise<void> {
    for (const chore of this.chores) {
      if (!chore.due(this.clock.nowMs())) continue;
      try {
        await chore.run();
      } catch (err) {
        this.log.error({ err }, 'worker upkeep failed; it runs again at its next interval');
      }
    }
  }

  private add(kind: JobKind, handler: Registered): void {
    if (this.handlers.has(kind)) throw new Error(`job kind ${kind} registered twice`);
    this.handlers.set(kind, handler);
    if (handler.inTransaction) this.kindsInTx.push(kind);
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.current.catch(() => undefined);
    await this.outsideLane.idle();
  }

  /** A lane slot came free: if outside jobs were left unclaimed for want of one, claim them now. */
  private laneHasRoom(): void {
    if (!this.outsideHeldBack || !this.outsideLane.hasRoom()) return;
    this.outsideHeldBack = false;
    this.kick();
  }

  /** Asks for a pass soon (after a transaction queued work that is due now). */
  kick(): void {
    if (!this.stopped && !this.running) this.schedule(0);
  }

  /**
   * Runs due jobs until none is left (or a bound is reached), optionally only one platform's. The sandbox
   * clock calls this after moving time, so delayed outcomes have happened when the call returns.
   */
  async drain(filter: ClaimFilter = {}, maxRounds = 50): Promise<number> {
    let total = 0;
    for (let round = 0; round < maxRounds; round++) {
      const ran = await this.runOnce(filter, true);
      // Outside jobs of these scopes that a background pass claimed before us finish first too.
      const { platformId, environment } = filter;
      await this.outsideLane.idle(
        (scopeKey) =>
          (platformId === undefined || scopeKey.startsWith(`${platformId}/`)) &&
          (environment === undefined || scopeKey.endsWith(`/${environment}`)),
      );
      total += ran;
      if (ran === 0) break;
    }
    return total;
  }

  /**
   * Runs one job now, in the caller's time, if it is due and unclaimed (the claim makes sure no other
   * process runs it too). Returns false when it was not run here: already claimed, done, or not due.
   */
  async runNow(jobId: string): Promise<boolean> {
    return (await this.runOnce({ id: jobId }, true)) > 0;
  }

  private schedule(delayMs: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.current = detached(() => this.tick());
    }, delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    this.running = true;
    let ran = 0;
    try {
      await this.releaseStranded();
      ran = await this.runOnce({});
      await this.runChores();
      if (this.outagePasses > 0) this.log.warn({}, 'the job worker has the database again and carries on');
      this.outagePasses = 0;
    } catch (err) {
      if (!databaseUnavailable(err)) this.log.error({ err }, 'job worker pass failed');
      else if (this.outagePasses++ === 0)
        this.log.error(
          { err },
          'the job worker lost the database; it tries again, less and less often, until it is back',
        );
    } finally {
      this.running = false;
    }
    if (this.stopped) return;
    // An outage is logged once and polled with a growing pause, not met with an error every poll.
    const outageMs = Math.min(this.options.pollMs * 2 ** this.outagePasses, OUTAGE_BACKOFF_MAX_MS);
    this.schedule(this.outagePasses > 0 ? outageMs : ran > 0 ? 0 : this.options.pollMs);
  }

  /**
   * Puts back the jobs an outage stranded (claimed here, outcome never written), so they run again as soon
   * as the database is back rather than when their lease runs out. A job that did finish (its commit went
   * through, only the answer was lost) or that another process claimed since is left alone.
   */
  private async releaseStranded(): Promise<void> {
    while (this.stranded.length > 0) {
      const now = this.clock.nowMs();
      await deferJob(this.store.db, this.stranded[0]!, now, now);
      this.stranded.shift();
    }
  }

  /**
   * Claims a batch and runs it. Database-only jobs run side by side and the pass waits for them; outside
   * jobs go to the outside lane, and the pass waits for them only when `awaitOutside` (drain, runNow).
   * While the lane is full, the background pass claims database-only jobs alone.
   */
  private async runOnce(filter: ClaimFilter, awaitOutside = false): Promise<number> {
    const holdBack = !awaitOutside && !this.outsideLane.hasRoom();
    if (holdBack) this.outsideHeldBack = true;
    const claimFilter = holdBack ? { ...filter, kinds: this.kindsInTx } : filter;
    const { leaseMs, transactionalLeaseMs, batchSize } = this.options;
    const shorter =
      transactionalLeaseMs === undefined ? undefined : { kinds: this.kindsInTx, ms: transactionalLeaseMs };
    const jobs = await claimJobs(this.store, this.clock.nowMs(), leaseMs, batchSize, claimFilter, shorter);
    this.claimed += jobs.length;
    // One scope lookup per platform environment in the batch, not one per job.
    const scopes = new Map<string, Promise<Scope>>();
    const scopeOf = (job: Job) => {
      const key = `${job.platform_id}/${job.environment}`;
      if (!scopes.has(key)) scopes.set(key, this.options.scopeOf(job.platform_id, job.environment));
      return scopes.get(key)!;
    };
    // Database-only jobs run in groups, each group in one database transaction, the groups side by side
    // (over the PostgreSQL pool, or into shared SQLite group commits).
    const inTransaction = jobs.filter((job) => this.handlers.get(job.kind)?.inTransaction);
    const groups: Job[][] = [];
    for (let at = 0; at < inTransaction.length; at += JOBS_PER_TRANSACTION)
      groups.push(inTransaction.slice(at, at + JOBS_PER_TRANSACTION));
    const lost: unknown[] = [];
    const run = async (group: Job[]) => lost.push(...(await this.runTogether(group, scopeOf)));
    // Claimed in the order they fell due, so each order key's jobs enter the lane in that order.
    const outside = jobs
      .filter((job) => !this.handlers.get(job.kind)?.inTransaction)
      .map((job) => this.outsideLane.add(this.laneJob(job, () => scopeOf(job))));
    // `groupsAtOnce` runners, each taking the next group as it finishes one.
    const runners = Math.min(groups.length, this.options.groupsAtOnce ?? groups.length);
    const next = groups.values();
    const runner = async () => {
      for (let group = next.next(); !group.done; group = next.next()) await run(group.value);
    };
    await Promise.all([...Array.from({ length: runners }, runner), ...(awaitOutside ? outside : [])]);
    // The database went away under the pass: tick() logs it once and backs off; the jobs were stranded.
    if (lost.length > 0) throw lost[0];
    return jobs.length;
  }

  /** An outside job as the lane runs it: its order key from its payload, its scope's share of the lane. */
  private laneJob(job: Job, scopeOf: () => Promise<Scope>) {
    const handler = this.handlers.get(job.kind);
    const scopeKey = `${job.platform_id}/${job.environment}`;
    let key = job.id;
    if (handler && !handler.inTransaction && handler.orderKey) {
      // A payload that does not decode gets its own key here; runJob records its failure.
      try {
        key = `${job.kind}/${handler.orderKey(JSON.parse(job.payload) as JobPayloads[JobKind])}`;
      } catch {}
    }
    const run = async () => {
      try {
        // An outage strands the job (put back once the database returns): nothing for the lane to do.
        await this.runJob(job, scopeOf());
      } catch (err) {
        // Its failure could not be recorded: the job runs again once its lease runs out.
        this.log.error({ err, jobId: job.id, kind: job.kind }, 'job failed unrecorded; it runs again after its lease');
      }
    };
    return { orderKey: `${scopeKey}/${key}`, scopeKey, run };
  }

  /**
   * Runs database-only jobs in one transaction: their changes and their completion commit together, with
   * one BEGIN, one job update and one COMMIT for the group. If any of them throws (or is no longer ours),
   * the group is rolled back and each job runs again on its own, so each gets its own outcome. Answers the
   * outages that stranded jobs.
   */
  private async runTogether(group: Job[], scopeOf: (job: Job) => Promise<Scope>): Promise<unknown[]> {
    if (group.length > 1) {
      try {
        // Scopes first: on SQLite a lookup inside the transaction would wait behind the group commit it is in.
        const scopes = await Promise.all(group.map(scopeOf));
        const payloads = group.map((job) => JSON.parse(job.payload) as JobPayloads[JobKind]);
        const answers = await this.store.tx(async (trx) => {
          await this.prepareGroup(trx, group, payloads);
          const said: (void | RunAgainAt)[] = [];
          for (const [i, job] of group.entries()) {
            const handler = this.handlers.get(job.kind);
            if (!handler?.inTransaction) throw new Error(`job ${job.id} is not a database-only job`);
            said.push(await handler.run(trx, payloads[i]!, job, scopes[i]!));
          }
          const now = this.clock.nowMs();
          let ours = await completeJobs(
            trx,
            group.filter((_, i) => !said[i]),
            now,
          );
          for (const [i, job] of group.entries()) {
            const later = said[i];
            if (later) ours = (await deferJob(trx, job, later.runAgainAtMs, now)) && ours;
          }
          if (!ours) throw new Error('a job of the group was claimed by another worker');
          return said;
        });
        group.forEach((job, i) => this.counter?.inc({ kind: job.kind, outcome: answers[i] ? 'deferred' : 'done' }));
        return [];
      } catch {
        // Whatever it was, each job now meets it (or not) on its own, and records its own outcome.
      }
    }
    // One by one, so that the group holds one connection at a time, as its transaction did.
    const outages: unknown[] = [];
    for (const job of group) {
      const outage = await this.runJob(job, scopeOf(job));
      if (outage !== undefined) outages.push(outage);
    }
    return outages;
  }

  /** Each kind's preparer, once, with the payloads of the group's jobs of that kind. */
  private async prepareGroup(trx: Tx, group: Job[], payloads: JobPayloads[JobKind][]): Promise<void> {
    const byKind = new Map<string, JobPayloads[JobKind][]>();
    for (const [i, job] of group.entries()) {
      const ofKind = byKind.get(job.kind);
      if (ofKind) ofKind.push(payloads[i]!);
      else byKind.set(job.kind, [payloads[i]!]);
    }
    for (const [kind, ofKind] of byKind) {
      const handler = this.handlers.get(kind);
      if (handler?.inTransaction && handler.together && ofKind.length > 1) await handler.together(trx, ofKind);
    }
  }

  /** Runs one claimed job; answers the error when the database went away before the job's outcome was written. */
  private async runJob(job: Job, scopeLookup: Promise<Scope>): Promise<unknown> {
    const handler = this.handlers.get(job.kind);
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      const scope = await scopeLookup;
      // Written by enqueueJob from the same JobPayloads entry that typed the handler.
      const payload = JSON.parse(job.payload) as JobPayloads[JobKind];
      let answer: void | RunAgainAt = undefined;
      if (handler.inTransaction) {
        await this.store.tx(async (trx) => {
          answer = await handler.run(trx, payload, job, scope);
          // Our lease ran out and another process took the job: undo our work, theirs counts.
          if (!(await this.finish(trx, job, answer))) throw new Error(`job ${job.id} was claimed by another worker`);
        });
      } else {
        const ran = await handler.run(payload, job, scope);
        if (ran && 'finishedHere' in ran) answer = undefined;
        else {
          answer = ran;
          await this.store.tx((trx) => this.finish(trx, job, answer));
        }
      }
      this.counter?.inc({ kind: job.kind, outcome: answer ? 'deferred' : 'done' });
      return undefined;
    } catch (err) {
      if (databaseUnavailable(err)) return this.strand(job, err);
      const attempts = Number(job.attempts);
      const giveUp = attempts >= this.options.maxAttempts;
      this.counter?.inc({ kind: job.kind, outcome: giveUp ? 'failed' : 'retry' });
      this.log.error(
        { err, jobId: job.id, kind: job.kind, attempts },
        giveUp ? 'job failed for good' : 'job failed; will retry',
      );
      const message = err instanceof Error ? err.message : String(err);
      try {
        await failJob(this.store, job, message, this.clock.nowMs(), giveUp ? null : retryDelayMs(attempts));
      } catch (failure) {
        if (databaseUnavailable(failure)) return this.strand(job, failure);
        throw failure;
      }
      return undefined;
    }
  }

  /** An outage is not the job's failure: no attempt counted, the job is put back once the database returns. */
  private strand(job: Job, outage: unknown): unknown {
    this.stranded.push(job);
    return outage;
  }

  /** Marks the job done, or back in the queue when the handler said so; false when the job is no longer ours. */
  private finish(trx: Tx, job: Job, answer: void | RunAgainAt): Promise<boolean> {
    const now = this.clock.nowMs();
    return answer ? deferJob(trx, job, answer.runAgainAtMs, now) : completeJobs(trx, [job], now);
  }
}
