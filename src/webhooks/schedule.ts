/**
 * When a failed webhook is tried again: exponential backoff with full jitter, each wait at most
 * 30 minutes, for up to 7 days after the run's first attempt. Pure; the delivery handler supplies the
 * random source, so tests can make it deterministic.
 */

export const RETRY_WINDOW_MS = 7 * 24 * 3600_000;
export const MAX_RETRY_DELAY_MS = 30 * 60_000;
export const BASE_RETRY_DELAY_MS = 10_000;

/** RETRY: up to the 7-day window. ONCE: a single attempt whatever happens. */
export type RetryPolicy = 'RETRY' | 'ONCE';

/**
 * TEST is a connectivity check the caller watches; INCOMING_PAYMENT.PENDING asks for an approval that
 * times out within seconds, so a late retry could only confuse the receiver. Both are sent once.
 */
export function retryPolicyOf(eventType: string): RetryPolicy {
  return eventType === 'TEST' || eventType === 'INCOMING_PAYMENT.PENDING' ? 'ONCE' : 'RETRY';
}

/** The upper bound of the wait after the `failedAttempt`-th attempt (1-based): 10 s, 20 s, 40 s … 30 min. */
export function retryCapMs(failedAttempt: number): number {
  // Past 2^20 the cap is long saturated; stopping there keeps the power finite for any attempt count.
  const exponent = Math.min(Math.max(failedAttempt, 1) - 1, 20);
  return Math.min(MAX_RETRY_DELAY_MS, BASE_RETRY_DELAY_MS * 2 ** exponent);
}

/**
 * How long to wait before the next attempt, or null when the window is over. `elapsedMs` is the time
 * from the run's first attempt to now; `random` returns a number in [0, 1) like Math.random. Full
 * jitter (a uniform wait in [0, cap)) spreads out the retries of many events that failed together.
 */
export function nextRetryDelayMs(failedAttempt: number, elapsedMs: number, random: () => number): number | null {
  const r = random();
  const unit = Number.isFinite(r) ? Math.min(Math.max(r, 0), 1 - Number.EPSILON) : 0;
  const delay = Math.floor(unit * retryCapMs(failedAttempt));
  return elapsedMs + delay > RETRY_WINDOW_MS ? null : delay;
}

/** 2xx acknowledges. 409 is the receiver saying it already has this id: also an acknowledgement. */
export function isAcknowledged(status: number | null): boolean {
  return status !== null && ((status >= 200 && status < 300) || status === 409);
}

/** What one attempt's answer leads to. */
export type DeliveryStep =
  | { kind: 'DELIVERED' }
  | { kind: 'RETRY'; inMs: number }
  /** `windowOver`: a RETRY event ran out of its window (the endpoint is reported failing); a ONCE event was not. */
  | { kind: 'FAILED'; windowOver: boolean };

export interface AttemptOutcome {
  /** The HTTP status, or null when no answer came back. */
  status: number | null;
  /** 1-based within the run. */
  attempt: number;
  /** From the run's first attempt to now. */
  elapsedMs: number;
}

/**
 * The decision after an attempt, and nothing else: the delivery handler maps it onto database writes.
 * An acknowledgement ends the run; a ONCE event is never retried; a RETRY event waits the jittered
 * backoff until its window is over.
 */
export function nextStep(outcome: AttemptOutcome, policy: RetryPolicy, random: () => number): DeliveryStep {
  if (isAcknowledged(outcome.status)) return { kind: 'DELIVERED' };
  if (policy === 'ONCE') return { kind: 'FAILED', windowOver: false };
  const inMs = nextRetryDelayMs(outcome.attempt, outcome.elapsedMs, random);
  return inMs === null ? { kind: 'FAILED', windowOver: true } : { kind: 'RETRY', inMs };
}
