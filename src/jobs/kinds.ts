// The one list of job kinds and what each carries. enqueueJob and JobWorker.register are typed from it,
// so a payload written by one side is the payload the other side reads, and the worker decodes it once.
import type { FailureReason } from '../domain/failure-reasons.ts';
import type { RefundReason } from '../domain/transactions.ts';

/**
 * A webhook delivery. `run` is the event's delivery run (1, then one more per redelivery); `attempt` is
 * 1-based within the run; `since` is the scope time of the run's first attempt (absent until it has
 * happened); `url` overrides the configured endpoint (the TEST sent when it changes).
 */
export interface DeliverPayload {
  eventId: string;
  /** The event's object: the worker runs one object's deliveries one after another. Absent in older jobs. */
  objectId?: string;
  run: number;
  attempt: number;
  since?: number;
  url?: string;
}

export interface JobPayloads {
  /** A funded PENDING transaction goes to its rail. */
  'transaction.process': { id: string };
  /** The rail's delayed outcome for a PROCESSING transaction. */
  'transaction.finish': {
    id: string;
    result: 'COMPLETE' | 'FAIL';
    reason?: FailureReason;
    refundReason?: RefundReason;
  };
  /** A completed sandbox payout comes back from the receiving bank. */
  'transaction.return': { id: string; reason: FailureReason };
  /** A PROCESSING payment's instruction goes to its connector (a call out, never inside a transaction). */
  'connector.submit': { id: string };
  /** The connector is asked where a payment it took stands. */
  'connector.poll': { id: string };
  'quote.expire': { quoteId: string };
  'invitation.expire': { code: string };
  /** An incoming payment whose approval webhook went unanswered. */
  'incoming.approval-timeout': { id: string };
  'webhook.deliver': DeliverPayload;
}

export type JobKind = keyof JobPayloads;

/**
 * What a handler may answer instead of finishing: its work is not due yet (a sandbox clock, an earlier
 * event of the same object still in flight). The job goes back to the queue for that time without
 * counting as an attempt or a failure.
 */
export interface RunAgainAt {
  runAgainAtMs: number;
}

export const runAgainAt = (wallMs: number): RunAgainAt => ({ runAgainAtMs: wallMs });

/**
 * What a handler that runs outside a transaction answers when it marked its job done itself, in the
 * transaction that recorded its work (a webhook attempt): the worker has nothing left to write.
 */
export interface FinishedHere {
  finishedHere: true;
}

export const FINISHED_HERE: FinishedHere = { finishedHere: true };
