/**
 * The one source of "now". Services never call Date.now() themselves, so tests and the sandbox can
 * move time forward and see delayed outcomes and expiries happen at once.
 */
export interface Clock {
  nowMs(): number;
}

let latestMs = 0;

/**
 * The wall clock, never earlier than a reading it already gave. A VM's clock can be stepped back a little
 * when it is corrected; lists page by (created_at, id) and ids follow the order things happen in, so a time
 * that went back would put a later row before an earlier one (seen: two request-log entries swapped).
 */
export const systemClock: Clock = {
  nowMs: () => {
    latestMs = Math.max(latestMs, Date.now());
    return latestMs;
  },
};

export function iso(ms: number | bigint): string {
  return new Date(Number(ms)).toISOString();
}

/** Parses an RFC 3339 date-time into epoch milliseconds, or undefined when it is not one. */
export function parseTimestamp(value: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** True for a real calendar date written YYYY-MM-DD (no 2023-02-30). */
export function isCalendarDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}
