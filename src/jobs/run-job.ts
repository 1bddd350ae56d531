/**
 * One claimed job, run on its own: its handler, then its outcome written. Done, or back in the queue when
 * the handler asked for later; a failure is retried with a growing pause until `maxAttempts`, then kept as
 * failed; a database outage is no failure of the job: the job is stranded, and put back once it returns.
 */
import type { Clock } from '../domain/clock.ts';
import type { Store, Tx } from '../store/db.ts';
import { databaseUnavailable } from '../store/unavailable.ts';
import type { Scope } from '../context.ts';
import type { Handlers } from './handlers.ts';
import type { JobKind, JobPayloads, RunAgainAt } from './kinds.ts';
import { completeJobs, deferJob, failJob, type Job } from './queue.ts';

export interface Logger {
  error(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
}

/** Where the worker counts what it did (the app's Prometheus counter). */
export interface JobCounter {
  inc(labels: { kind: string; outcome: 'done' | 'deferred' | 'retry' | 'failed' }): void;
}

/** What running a job needs: the worker's store, clock, log and handlers, and where outages strand jobs. */
export interface JobRun {
  store: Store;
  clock: Clock;
  log: Logger;
  handlers: Handlers;
  maxAttempts: number;
  counter?: JobCounter | undefined;
  /** Keeps a job whose outcome an outage kept from being written, to put back later; answers the outage. */
  strand(job: Job, outage: unknown): unknown;
}

/** Bounded retry backoff for a handler that threw: 1 s, 2 s, 4 s … capped at 5 minutes. */
export function retryDelayMs(attempts: number): number {
  return Math.min(1000 * 2 ** Math.max(0, attempts - 1), 5 * 60_000);
}

/** Marks the job done, or back in the queue when the handler said so; false when the job is no longer ours. */
export function finishJob(trx: Tx, job: Job, answer: void | RunAgainAt, nowMs: number): Promise<boolean> {
  return answer ? deferJob(trx, job, answer.runAgainAtMs, nowMs) : completeJobs(trx, [job], nowMs);
}

/** Runs one claimed job; answers the error when the database went away before the job's outcome was written. */
export async function runJob(run: JobRun, job: Job, scopeLookup: Promise<Scope>): Promise<unknown> {
  const { store, clock, counter } = run;
  const handler = run.handlers.of(job.kind);
  try {
    if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
    const scope = await scopeLookup;
    // Written by enqueueJob from the same JobPayloads entry that typed the handler.
    const payload = JSON.parse(job.payload) as JobPayloads[JobKind];
    let answer: void | RunAgainAt = undefined;
    if (handler.inTransaction) {
      await store.tx(async (trx) => {
        answer = await handler.run(trx, payload, job, scope);
        // Our lease ran out and another process took the job: undo our work, theirs counts.
        if (!(await finishJob(trx, job, answer, clock.nowMs())))
          throw new Error(`job ${job.id} was claimed by another worker`);
      });
    } else {
      const ran = await handler.run(payload, job, scope);
      if (ran && 'finishedHere' in ran) answer = undefined;
      else {
        answer = ran;
        await store.tx((trx) => finishJob(trx, job, answer, clock.nowMs()));
      }
    }
    counter?.inc({ kind: job.kind, outcome: answer ? 'deferred' : 'done' });
    return undefined;
  } catch (err) {
    if (databaseUnavailable(err)) return run.strand(job, err);
    return recordFailure(run, job, err);
  }
}

/** The job's failure, written: a retry after retryDelayMs, or failed for good once its attempts are spent. */
async function recordFailure(run: JobRun, job: Job, err: unknown): Promise<unknown> {
  const attempts = Number(job.attempts);
  const giveUp = attempts >= run.maxAttempts;
  run.counter?.inc({ kind: job.kind, outcome: giveUp ? 'failed' : 'retry' });
  run.log.error(
    { err, jobId: job.id, kind: job.kind, attempts },
    giveUp ? 'job failed for good' : 'job failed; will retry',
  );
  const message = err instanceof Error ? err.message : String(err);
  try {
    await failJob(run.store, job, message, run.clock.nowMs(), giveUp ? null : retryDelayMs(attempts));
  } catch (failure) {
    if (databaseUnavailable(failure)) return run.strand(job, failure);
    throw failure;
  }
  return undefined;
}
