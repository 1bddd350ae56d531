/**
 * The worker while the database is away. An outage is not a job's failure: a job whose outcome could not
 * be written is stranded (no attempt counted) and put back as soon as the database returns, rather than
 * when its lease runs out. The outage is logged once, and the worker polls with a growing pause instead of
 * meeting it with an error every poll; once the database answers again, that is logged once too.
 */
import type { Db } from '../store/db.ts';
import { databaseUnavailable } from '../store/unavailable.ts';
import { deferJob, type Job } from './queue.ts';
import type { Logger } from './run-job.ts';

/** Longest pause between two passes while the database is away: how soon the worker notices it is back. */
export const OUTAGE_BACKOFF_MAX_MS = 5_000;

/**
 * The pause before the next pass: none after a pass that ran jobs (more may be due), the poll interval
 * after an idle one, and during an outage the poll interval doubled for each pass that found it, capped.
 */
export function nextPassInMs(pollMs: number, outagePasses: number, ran: number): number {
  if (outagePasses > 0) return Math.min(pollMs * 2 ** outagePasses, OUTAGE_BACKOFF_MAX_MS);
  return ran > 0 ? 0 : pollMs;
}

export class OutageWatch {
  /** Passes in a row that found the database away (0: it is there). */
  private passes = 0;
  /** Jobs this process claimed whose outcome the database went away before it could be written. */
  private readonly stranded: Job[] = [];

  constructor(private readonly log: Logger) {}

  get outagePasses(): number {
    return this.passes;
  }

  /** Keeps the job to put back once the database returns; answers the outage. */
  strand(job: Job, outage: unknown): unknown {
    this.stranded.push(job);
    return outage;
  }

  /**
   * Puts back the jobs an outage stranded (claimed here, outcome never written), due now. A job that did
   * finish (its commit went through, only the answer was lost) or that another process claimed since is
   * left alone. One that cannot be put back yet stays, for the next pass.
   */
  async releaseStranded(db: Db, nowMs: () => number): Promise<void> {
    while (this.stranded.length > 0) {
      const now = nowMs();
      await deferJob(db, this.stranded[0]!, now, now);
      this.stranded.shift();
    }
  }

  /** A pass went through: the database is there. */
  passed(): void {
    if (this.passes > 0) this.log.warn({}, 'the job worker has the database again and carries on');
    this.passes = 0;
  }

  /** A pass threw: an outage counts (and is logged at its first pass); any other error is logged. */
  failed(err: unknown): void {
    if (!databaseUnavailable(err)) this.log.error({ err }, 'job worker pass failed');
    else if (this.passes++ === 0)
      this.log.error(
        { err },
        'the job worker lost the database; it tries again, less and less often, until it is back',
      );
  }
}
