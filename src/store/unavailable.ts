// Whether a failure means "the database is not there right now" rather than "this request is wrong": the
// one answer shared by the HTTP layer (a 503 the client may retry), the job worker (pause, back off and
// carry on when it is back) and the start-up messages (startup-errors.ts). Only PostgreSQL can be away;
// SQLite errors never match.

/** The network failures of reaching the database server. */
export const UNREACHABLE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

/**
 * PostgreSQL's codes for "not now": class 08 (connection exception) is matched by its prefix; 57P01–57P04
 * the server shutting down, crashing, starting or the database dropped; 53300 too many connections; 3D000
 * the database does not exist (dropped or being restored).
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '57P04', '53300', '3D000']);

/** What node-postgres says, with no code, about a connection that died or never came. */
const LOST_CONNECTION = [
  /^Connection terminated/,
  /is not queryable$/,
  /^timeout exceeded when trying to connect$/,
  /is not currently accepting connections/,
];

export function databaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as Error).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string') {
      if (UNREACHABLE_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
    }
    if (typeof message === 'string' && LOST_CONNECTION.some((pattern) => pattern.test(message))) return true;
    // A host name with several addresses fails with one error per address.
    if (e instanceof AggregateError && e.errors.some((inner) => databaseUnavailable(inner))) return true;
  }
  return false;
}
