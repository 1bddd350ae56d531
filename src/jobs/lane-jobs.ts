/**
 * How the worker hands outside jobs (webhook POSTs) to its outside lane (outside-lane.ts): each job's
 * order key, read from its payload by its kind's `orderKey`, and its scope's key, for the lane's share
 * per platform environment and for a drain that waits for one platform's jobs only.
 */
import type { Scope } from '../context.ts';
import type { Registered } from './handlers.ts';
import type { JobKind, JobPayloads } from './kinds.ts';
import type { LaneJob } from './outside-lane.ts';
import type { ClaimFilter, Job } from './queue.ts';
import { runJob, type JobRun } from './run-job.ts';

/** The platform environment a job belongs to, as the lane keys it. */
export const scopeKeyOf = (job: Pick<Job, 'platform_id' | 'environment'>): string =>
  `${job.platform_id}/${job.environment}`;

/**
 * Jobs with the same key run one after another: in one scope, those of one kind whose payloads give the
 * same `orderKey`. Any other job (no order key, or a payload that does not decode) is a key of its own.
 */
export function laneOrderKey(job: Job, handler: Registered | undefined): string {
  let key = job.id;
  if (handler && !handler.inTransaction && handler.orderKey) {
    // A payload that does not decode gets its own key here; running the job records its failure.
    try {
      key = `${job.kind}/${handler.orderKey(JSON.parse(job.payload) as JobPayloads[JobKind])}`;
    } catch {}
  }
  return `${scopeKeyOf(job)}/${key}`;
}

/** An outside job as the lane runs it: its order key, its scope's share of the lane, and the job run. */
export function laneJob(run: JobRun, job: Job, scopeOf: () => Promise<Scope>): LaneJob {
  const runIt = async () => {
    try {
      // An outage strands the job (put back once the database returns): nothing for the lane to do.
      await runJob(run, job, scopeOf());
    } catch (err) {
      // Its failure could not be recorded: the job runs again once its lease runs out.
      run.log.error({ err, jobId: job.id, kind: job.kind }, 'job failed unrecorded; it runs again after its lease');
    }
  };
  return { orderKey: laneOrderKey(job, run.handlers.of(job.kind)), scopeKey: scopeKeyOf(job), run: runIt };
}

/** Whether a lane scope key is one of the scopes a claim filter names (all when it names none). */
export function scopeKeyIn(filter: Pick<ClaimFilter, 'platformId' | 'environment'>): (scopeKey: string) => boolean {
  const { platformId, environment } = filter;
  return (scopeKey) =>
    (platformId === undefined || scopeKey.startsWith(`${platformId}/`)) &&
    (environment === undefined || scopeKey.endsWith(`/${environment}`));
}
