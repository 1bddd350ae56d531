/**
 * Database-only jobs (rail steps) claimed together run in groups, each group in one database transaction:
 * fewer BEGIN/COMMIT round trips and commits per job, while each group still holds its row locks only
 * briefly. A group that fails in any way is run again job by job, so each job meets its own outcome.
 */
import type { Tx } from '../store/db.ts';
import type { Scope } from '../context.ts';
import type { Handlers } from './handlers.ts';
import type { JobKind, JobPayloads, RunAgainAt } from './kinds.ts';
import { completeJobs, deferJob, type Job } from './queue.ts';
import { runJob, type JobRun } from './run-job.ts';

/** Jobs in one group's transaction. */
export const JOBS_PER_TRANSACTION = 10;

/** Consecutive slices of at most `size`, in order. */
export function groupsOf<T>(items: readonly T[], size: number): T[][] {
  const groups: T[][] = [];
  for (let at = 0; at < items.length; at += size) groups.push(items.slice(at, at + size));
  return groups;
}

/** The payloads of a group's jobs by kind, in the jobs' order (payloads[i] is jobs[i]'s). */
export function payloadsByKind<P>(jobs: readonly Pick<Job, 'kind'>[], payloads: readonly P[]): Map<string, P[]> {
  const byKind = new Map<string, P[]>();
  for (const [i, job] of jobs.entries()) {
    const ofKind = byKind.get(job.kind);
    if (ofKind) ofKind.push(payloads[i]!);
    else byKind.set(job.kind, [payloads[i]!]);
  }
  return byKind;
}

/**
 * Runs database-only jobs in one transaction: their changes and their completion commit together, with
 * one BEGIN, one job update and one COMMIT for the group. If any of them throws (or is no longer ours),
 * the group is rolled back and each job runs again on its own, so each gets its own outcome. Answers the
 * outages that stranded jobs.
 */
export async function runGroup(run: JobRun, group: Job[], scopeOf: (job: Job) => Promise<Scope>): Promise<unknown[]> {
  if (group.length > 1 && (await ranTogether(run, group, scopeOf))) return [];
  // One by one, so that the group holds one connection at a time, as its transaction did.
  const outages: unknown[] = [];
  for (const job of group) {
    const outage = await runJob(run, job, scopeOf(job));
    if (outage !== undefined) outages.push(outage);
  }
  return outages;
}

/** The group in one transaction; false when it was rolled back, whatever the reason. */
async function ranTogether(run: JobRun, group: Job[], scopeOf: (job: Job) => Promise<Scope>): Promise<boolean> {
  const { store, clock, handlers } = run;
  try {
    // Scopes first: on SQLite a lookup inside the transaction would wait behind the group commit it is in.
    const scopes = await Promise.all(group.map(scopeOf));
    const payloads = group.map((job) => JSON.parse(job.payload) as JobPayloads[JobKind]);
    const answers = await store.tx(async (trx) => {
      await prepareGroup(handlers, trx, group, payloads);
      const said: (void | RunAgainAt)[] = [];
      for (const [i, job] of group.entries()) {
        const handler = handlers.of(job.kind);
        if (!handler?.inTransaction) throw new Error(`job ${job.id} is not a database-only job`);
        said.push(await handler.run(trx, payloads[i]!, job, scopes[i]!));
      }
      const now = clock.nowMs();
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
    group.forEach((job, i) => run.counter?.inc({ kind: job.kind, outcome: answers[i] ? 'deferred' : 'done' }));
    return true;
  } catch {
    // Whatever it was, each job now meets it (or not) on its own, and records its own outcome.
    return false;
  }
}

/** Each kind's preparer, once, with the payloads of the group's jobs of that kind. */
async function prepareGroup(handlers: Handlers, trx: Tx, group: Job[], payloads: JobPayloads[JobKind][]) {
  for (const [kind, ofKind] of payloadsByKind(group, payloads)) {
    const handler = handlers.of(kind);
    if (handler?.inTransaction && handler.together && ofKind.length > 1) await handler.together(trx, ofKind);
  }
}
