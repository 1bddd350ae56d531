/** The worker's handlers, one per job kind, and the two ways a handler runs. */
import type { Tx } from '../store/db.ts';
import type { Scope } from '../context.ts';
import type { FinishedHere, JobKind, JobPayloads, RunAgainAt } from './kinds.ts';
import type { Job } from './queue.ts';

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

/**
 * Run once for the jobs of one kind in a group, before any of them, in the group's transaction: what each
 * job would read on its own is read for all in one statement (the rail steps lock their payments together).
 */
export type GroupPreparer<K extends JobKind> = (trx: Tx, payloads: JobPayloads[K][]) => Promise<void>;

/** A kind's handler as the worker keeps it. */
export type Registered =
  | { inTransaction: false; run: JobHandler<JobKind>; orderKey?: (payload: JobPayloads[JobKind]) => string }
  | { inTransaction: true; run: TransactionalJobHandler<JobKind>; together?: GroupPreparer<JobKind> | undefined };

export class Handlers {
  private readonly byKind = new Map<string, Registered>();
  /** The kinds registered as database-only jobs, kept as they are registered (each pass's claim reads them). */
  readonly kindsInTransaction: string[] = [];

  add(kind: JobKind, handler: Registered): void {
    if (this.byKind.has(kind)) throw new Error(`job kind ${kind} registered twice`);
    this.byKind.set(kind, handler);
    if (handler.inTransaction) this.kindsInTransaction.push(kind);
  }

  of(kind: string): Registered | undefined {
    return this.byKind.get(kind);
  }

  /** Whether the job is database-only; a job of an unknown kind is not (it fails where its failure is recorded). */
  inTransaction(job: Pick<Job, 'kind'>): boolean {
    return this.byKind.get(job.kind)?.inTransaction ?? false;
  }
}
