/**
 * The job worker: claims due jobs with a lease and runs them, pass after pass. Its parts: handlers.ts (the kinds),
 * run-job.ts (one job, its outcome), groups.ts and pool-share.ts (database-only jobs ten to a transaction, so many
 * transactions at once), lane-jobs.ts and outside-lane.ts (jobs that wait on the outside), chores.ts, outage.ts.
 */
import type { Clock } from '../domain/clock.ts';
import { detached, type Store } from '../store/db.ts';
import type { Scope } from '../context.ts';
import { Chores } from './chores.ts';
import { groupsOf, JOBS_PER_TRANSACTION, runGroup } from './groups.ts';
import { type GroupPreparer, Handlers, type JobHandler, type TransactionalJobHandler } from './handlers.ts';
import type { JobKind, JobPayloads } from './kinds.ts';
import { laneJob, scopeKeyIn, scopeKeyOf } from './lane-jobs.ts';
import { nextPassInMs, OutageWatch } from './outage.ts';
import { OutsideLane } from './outside-lane.ts';
import { runAtMost } from './pool-share.ts';
import { claimJobs, purgeFinishedJobs, vacuumJobs, type ClaimFilter, type Job, type PurgeKeeping } from './queue.ts';
import type { JobCounter, JobRun, Logger } from './run-job.ts';

export type { JobCounter, Logger } from './run-job.ts';

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

/** How often each worker process purges finished jobs past their keeping time (bounded batches each time). */
const JOB_PURGE_EVERY_MS = 15_000;

export class JobWorker {
  private readonly handlers = new Handlers();
  private readonly chores: Chores;
  private readonly outage: OutageWatch;
  private readonly outsideLane: OutsideLane;
  /** What runs a job: the store, clock, log and handlers, and where an outage strands it. */
  private readonly run: JobRun;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private stopped = true;
  private current: Promise<unknown> = Promise.resolve();
  /** Jobs this process has claimed since it started. */
  private claimed = 0;
  /** The last background pass left outside jobs unclaimed because the lane was full. */
  private outsideHeldBack = false;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    log: Logger,
    private readonly options: WorkerOptions,
    counter?: JobCounter,
  ) {
    const limit = options.outsideLimit ?? 32;
    const perScope = options.outsidePerScope ?? Math.max(1, limit / 2);
    this.outsideLane = new OutsideLane(limit, perScope, () => this.laneHasRoom());
    this.chores = new Chores(clock, log);
    this.outage = new OutageWatch(log);
    const strand = (job: Job, err: unknown) => this.outage.strand(job, err);
    this.run = { store, clock, log, handlers: this.handlers, maxAttempts: options.maxAttempts, counter, strand };
  }

  /**
   * A handler that talks to the outside world (webhook delivery): it runs outside any transaction, side by
   * side with others (see OutsideLane). Jobs of one kind whose payloads give the same `orderKey` (in one
   * platform environment) run one after another, in the order they fell due.
   */
  register<K extends JobKind>(kind: K, handler: JobHandler<K>, orderKey?: (payload: JobPayloads[K]) => string): void {
    const key = orderKey as ((payload: JobPayloads[JobKind]) => string) | undefined;
    const run = handler as JobHandler<JobKind>;
    this.handlers.add(kind, { inTransaction: false, run, ...(key ? { orderKey: key } : {}) });
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
    this.handlers.add(kind, { inTransaction: true, run, together: together as GroupPreparer<JobKind> | undefined });
  }

  /** Upkeep that belongs to no job, run after a pass at most once per interval (see Chores). */
  every(intervalMs: number, run: () => Promise<unknown>): void {
    this.chores.every(intervalMs, run);
  }

  /**
   * Vacuums the job table (PostgreSQL: see vacuumJobs) once this process has claimed `claims` jobs since its
   * last vacuum, so that the work a claim walks past stays bounded by what a few thousand jobs leave.
   */
  vacuumAfterClaims(claims: number): void {
    const claimed = () => this.claimed;
    this.chores.afterEach(claims, claimed, () => vacuumJobs(this.store));
  }

  /**
   * Purges done and failed jobs once their keeping time is over (see purgeFinishedJobs): without it every
   * job ever run would stay in the table, one or more per payment and one per webhook event.
   */
  purgeFinishedAfter(keep: PurgeKeeping): void {
    this.every(JOB_PURGE_EVERY_MS, () => purgeFinishedJobs(this.store, this.clock.nowMs(), keep));
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
      await this.outsideLane.idle(scopeKeyIn(filter));
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
      await this.outage.releaseStranded(this.store.db, () => this.clock.nowMs());
      ran = await this.runOnce({});
      await this.chores.runDue();
      this.outage.passed();
    } catch (err) {
      this.outage.failed(err);
    } finally {
      this.running = false;
    }
    if (this.stopped) return;
    this.schedule(nextPassInMs(this.options.pollMs, this.outage.outagePasses, ran));
  }

  /**
   * Claims a batch and runs it. Database-only jobs run side by side and the pass waits for them; outside
   * jobs go to the outside lane, and the pass waits for them only when `awaitOutside` (drain, runNow).
   * While the lane is full, the background pass claims database-only jobs alone.
   */
  private async runOnce(filter: ClaimFilter, awaitOutside = false): Promise<number> {
    const jobs = await this.claim(filter, !awaitOutside && !this.outsideLane.hasRoom());
    // One scope lookup per platform environment in the batch, not one per job.
    const scopes = new Map<string, Promise<Scope>>();
    const scopeOf = (job: Job) => {
      const key = scopeKeyOf(job);
      if (!scopes.has(key)) scopes.set(key, this.options.scopeOf(job.platform_id, job.environment));
      return scopes.get(key)!;
    };
    // Database-only jobs run in groups, each group in one database transaction, the groups side by side
    // (over the PostgreSQL pool, or into shared SQLite group commits).
    const inTx = (job: Job) => this.handlers.inTransaction(job);
    const groups = groupsOf(jobs.filter(inTx), JOBS_PER_TRANSACTION);
    const lost: unknown[] = [];
    // Claimed in the order they fell due, so each order key's jobs enter the lane in that order.
    const outside = jobs
      .filter((job) => !inTx(job))
      .map((job) => this.outsideLane.add(laneJob(this.run, job, () => scopeOf(job))));
    const inGroups = runAtMost(groups, this.options.groupsAtOnce, async (group) =>
      lost.push(...(await runGroup(this.run, group, scopeOf))),
    );
    await Promise.all([inGroups, ...(awaitOutside ? outside : [])]);
    // The database went away under the pass: tick() logs it once and backs off; the jobs were stranded.
    if (lost.length > 0) throw lost[0];
    return jobs.length;
  }

  /**
   * The batch's claim, each job leased for what it does: the short lease for database-only jobs, the long
   * one for outside jobs. `holdBack` (the lane is full) claims database-only jobs alone.
   */
  private async claim(filter: ClaimFilter, holdBack: boolean): Promise<Job[]> {
    if (holdBack) this.outsideHeldBack = true;
    const kindsInTx = this.handlers.kindsInTransaction;
    const claimFilter = holdBack ? { ...filter, kinds: kindsInTx } : filter;
    const { leaseMs, transactionalLeaseMs, batchSize } = this.options;
    const shorter = transactionalLeaseMs === undefined ? undefined : { kinds: kindsInTx, ms: transactionalLeaseMs };
    const jobs = await claimJobs(this.store, this.clock.nowMs(), leaseMs, batchSize, claimFilter, shorter);
    this.claimed += jobs.length;
    return jobs;
  }
}
