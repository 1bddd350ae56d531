// The sandbox request log: every API request of a sandbox workspace, kept in the database (so every server
// process on one PostgreSQL writes one log) and bounded per workspace. Recording costs the request nothing
// but an object in memory: entries are written in batches, outside any request's transaction, on a short
// timer, when a batch is full, before a read, and on close.
import type { Logger } from 'pino';
import { iso } from '../domain/clock.ts';
import { sql } from 'kysely';
import { newId } from '../domain/ids.ts';
import type { Page, PageRequest } from '../domain/paging.ts';
import { type Ctx, type Scope, wallNowMs } from '../context.ts';
import { detached, type Tx } from '../store/db.ts';
import { keysetPage, mapPage } from '../store/paging.ts';
import type { SandboxRequestsTable } from '../store/schema.ts';
import { bindDeps } from './bind.ts';

/**
 * How long an entry may wait in memory before it is written: how stale another process's view can be. Each
 * write is a few statements whatever its size, so a longer wait makes them cheaper per request.
 */
export const FLUSH_EVERY_MS = 500;
/** A full batch is written at once, without waiting for the timer. */
const BATCH_SIZE = 500;
/**
 * Rows per INSERT statement: well under both engines' limit on bound parameters. A batch is cut into
 * powers of two up to this, so the log adds at most eight statement texts to each connection's cache of
 * prepared statements, however its batches vary.
 */
const ROWS_PER_INSERT = 128;
/** What one process holds while the database is unreachable; beyond it the oldest entries are dropped. */
const MAX_BUFFERED = 20_000;
/** A batch that fails this often in a row is dropped: one the database can never take must not block the rest. */
const MAX_ATTEMPTS = 3;

/** One way an answer or a webhook differs from the document. */
export interface ContractMismatch {
  kind: 'response' | 'webhook';
  /** `GET /customers/{customerId}`, or `webhook OUTGOING_PAYMENT.COMPLETED`. */
  operation: string;
  /** The HTTP status answered (a webhook: the receiver's, null when none came back). */
  status: number | null;
  /** Where in the body, as a JSON pointer (`/data/0/status`); empty for the body itself. */
  path: string;
  /** The schema rule broken: a JSON Schema keyword (`enum`, `required`), or `status`, `content`. */
  rule: string;
  /** Where the rule is in the document (`#/components/schemas/Customer/properties/status/enum`). */
  schemaPath: string;
  message: string;
  /** A webhook's event id (`Webhook:…`): the event GET /webhook-events/{eventId} shows. */
  eventId?: string;
}

/** What the log says of a request, however it is kept. */
interface RequestFacts {
  id: string;
  method: string;
  path: string;
  /** Null when a fault rule dropped the connection. */
  status: number | null;
  latencyMs: number;
  requestId: string;
  idempotencyKey: string | null;
  errorCode: string | null;
  faultId: string | null;
}

/** One request as the process saw it; the hook in http/sandbox-requests.ts fills it. */
export interface RequestLogEntry extends RequestFacts {
  platformId: string;
  environment: Scope['environment'];
  arrivedAtMs: number;
  /** Redacted JSON text, or null (bodies not kept, or none sent). */
  requestBody: string | null;
  responseBody: string | null;
  /** The query string as sent, without its `?` (kept with the bodies); null when none. */
  query: string | null;
  /** What contract check mode found wrong with the answer (SANDBOX_CONTRACT_CHECK); null when nothing. */
  contractMismatches: ContractMismatch[] | null;
}

/** An entry as GET /sandbox/requests shows it. */
export interface LoggedRequest extends RequestFacts {
  time: string;
  requestBody?: unknown;
  responseBody?: unknown;
  /** With the bodies: the query string as sent (without its `?`), or null. */
  query?: string | null;
  /** Present only when contract check mode found the answer (or webhook) not to match the document. */
  contractMismatches?: ContractMismatch[];
}

export interface RequestLogFilters {
  method?: string | undefined;
  pathPrefix?: string | undefined;
  /** An exact status (404), or a class given by its first digit (4 for 4xx). */
  status?: { exact: number } | { hundreds: number } | undefined;
  errorCode?: string | undefined;
  idempotencyKey?: string | undefined;
  requestId?: string | undefined;
  faultId?: string | undefined;
  sinceMs?: number | undefined;
  untilMs?: number | undefined;
  /** Only entries contract check mode found a mismatch in. */
  contractMismatch?: boolean | undefined;
}

export interface SandboxRequestLog {
  /** Whether entries carry their bodies (SANDBOX_REQUEST_LOG_BODIES). */
  readonly keepsBodies: boolean;
  /** The id and arrival time of a request that has just come in: ids sort by arrival within a process. */
  arrival(): { id: string; atMs: number };
  /** Keeps one entry in memory; it is written with the next batch. */
  record(entry: RequestLogEntry): void;
  /** Writes every entry this process holds. Never throws: a failure is logged and the entries kept for the next. */
  flush(): Promise<void>;
  /** A page of the workspace's log, newest first, after writing what this process holds. */
  list(scope: Scope, filters: RequestLogFilters, page: PageRequest): Promise<Page<LoggedRequest>>;
}

function toRow(e: RequestLogEntry): SandboxRequestsTable {
  return {
    id: e.id,
    platform_id: e.platformId,
    environment: e.environment,
    created_at: BigInt(e.arrivedAtMs),
    method: e.method,
    path: e.path,
    status: e.status === null ? null : BigInt(e.status),
    latency_ms: BigInt(Math.max(0, Math.round(e.latencyMs))),
    request_id: e.requestId,
    idempotency_key: e.idempotencyKey,
    error_code: e.errorCode,
    fault_id: e.faultId,
    request_body: e.requestBody,
    response_body: e.responseBody,
    query: e.query,
    contract_mismatches: e.contractMismatches?.length ? JSON.stringify(e.contractMismatches) : null,
  };
}

const parsed = (text: string | null): unknown => (text === null ? null : JSON.parse(text));

function toLoggedRequest(row: SandboxRequestsTable, withBodies: boolean): LoggedRequest {
  const entry: LoggedRequest = {
    id: row.id,
    time: iso(row.created_at),
    method: row.method,
    path: row.path,
    status: row.status === null ? null : Number(row.status),
    latencyMs: Number(row.latency_ms),
    requestId: row.request_id,
    idempotencyKey: row.idempotency_key,
    errorCode: row.error_code,
    faultId: row.fault_id,
  };
  if (row.contract_mismatches !== null)
    entry.contractMismatches = JSON.parse(row.contract_mismatches) as ContractMismatch[];
  if (withBodies) {
    entry.query = row.query;
    entry.requestBody = parsed(row.request_body);
    entry.responseBody = parsed(row.response_body);
  }
  return entry;
}

/**
 * Keeps only the newest `size` entries of one workspace, in one statement: the first entry past them is
 * found through the index, and it and every older one go (nothing, when there is no such entry).
 */
async function trim(db: Tx, platformId: string, environment: Scope['environment'], size: number): Promise<void> {
  const firstTooOld = db
    .selectFrom('sandbox_requests')
    .select(['created_at', 'id'])
    .where('platform_id', '=', platformId)
    .where('environment', '=', environment)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .offset(size);
  await db
    .deleteFrom('sandbox_requests')
    .where('platform_id', '=', platformId)
    .where('environment', '=', environment)
    .where(sql<boolean>`(created_at, id) <= (${firstTooOld})`)
    .execute();
}

/** The largest power of two, at most ROWS_PER_INSERT, that fits in `n`. */
function chunkOf(n: number): number {
  let size = ROWS_PER_INSERT;
  while (size > n) size /= 2;
  return size;
}

/** One transaction per batch (one commit, one fsync on SQLite), never a request's: the rows, then the bound. */
async function write(ctx: Ctx, entries: RequestLogEntry[]): Promise<void> {
  const rows = entries.map(toRow);
  const workspaces = new Map(entries.map((e) => [`${e.platformId} ${e.environment}`, e]));
  await ctx.store.tx(async (trx) => {
    for (let i = 0; i < rows.length; ) {
      const size = chunkOf(rows.length - i);
      await trx
        .insertInto('sandbox_requests')
        .values(rows.slice(i, i + size))
        .execute();
      i += size;
    }
    for (const e of workspaces.values())
      await trim(trx, e.platformId, e.environment, ctx.config.sandboxRequestLog.size);
  });
}

function filtered(ctx: Ctx, scope: Scope, f: RequestLogFilters) {
  let q = ctx.store.db
    .selectFrom('sandbox_requests')
    .where('platform_id', '=', scope.platformId)
    .where('environment', '=', scope.environment);
  if (f.method !== undefined) q = q.where('method', '=', f.method);
  // Compared as text, not with LIKE (a `%` or `_` in a path would widen it, and SQLite's LIKE ignores case) nor
  // as a range (a PostgreSQL collation may not sort `/` as a byte); the workspace's index has narrowed the rows.
  if (f.pathPrefix !== undefined) {
    const prefix = f.pathPrefix;
    q = q.where(sql<string>`substr(path, 1, ${[...prefix].length})`, '=', prefix);
  }
  if (f.status && 'exact' in f.status) q = q.where('status', '=', BigInt(f.status.exact));
  if (f.status && 'hundreds' in f.status) {
    const from = BigInt(f.status.hundreds * 100);
    q = q.where('status', '>=', from).where('status', '<', from + 100n);
  }
  if (f.errorCode !== undefined) q = q.where('error_code', '=', f.errorCode);
  if (f.idempotencyKey !== undefined) q = q.where('idempotency_key', '=', f.idempotencyKey);
  if (f.requestId !== undefined) q = q.where('request_id', '=', f.requestId);
  if (f.faultId !== undefined) q = q.where('fault_id', '=', f.faultId);
  if (f.sinceMs !== undefined) q = q.where('created_at', '>=', BigInt(f.sinceMs));
  if (f.untilMs !== undefined) q = q.where('created_at', '<=', BigInt(f.untilMs));
  if (f.contractMismatch === true) q = q.where('contract_mismatches', 'is not', null);
  if (f.contractMismatch === false) q = q.where('contract_mismatches', 'is', null);
  return q;
}

/** The log of this process: what waits to be written, the timer that writes it, the write under way. */
interface RequestLogDeps {
  ctx: Ctx;
  log: Logger;
  buffer: RequestLogEntry[];
  timer: NodeJS.Timeout | undefined;
  writing: Promise<void>;
  /** Entries dropped so far because too many waited for the database. */
  dropped: number;
  /** Failed writes in a row of the entries held now. */
  failures: number;
}

async function writeBuffered(deps: RequestLogDeps): Promise<void> {
  if (deps.timer) clearTimeout(deps.timer);
  deps.timer = undefined;
  const batch = deps.buffer;
  deps.buffer = [];
  if (batch.length === 0) return;
  try {
    // Never part of a request's transaction: the flush may start from inside one's async context.
    await detached(() => write(deps.ctx, batch));
    deps.failures = 0;
  } catch (err) {
    deps.failures++;
    const keep = deps.failures < MAX_ATTEMPTS;
    deps.log.warn({ err, entries: batch.length, keep }, 'sandbox request log: could not write the entries');
    if (keep) deps.buffer = [...batch, ...deps.buffer].slice(-MAX_BUFFERED);
    else deps.failures = 0;
    schedule(deps);
  }
}

/** One write at a time, in order: a flush waits for the one under way, then writes what came since. */
function flush(deps: RequestLogDeps): Promise<void> {
  deps.writing = deps.writing.then(() => writeBuffered(deps));
  return deps.writing;
}

function schedule(deps: RequestLogDeps): void {
  if (deps.timer) return;
  deps.timer = setTimeout(() => void flush(deps), FLUSH_EVERY_MS);
  // A process that only ran a CLI command must not wait for the log.
  deps.timer.unref();
}

function arrival(deps: RequestLogDeps): { id: string; atMs: number } {
  return { id: newId('LogEntry'), atMs: wallNowMs(deps.ctx) };
}

function record(deps: RequestLogDeps, entry: RequestLogEntry): void {
  deps.buffer.push(entry);
  if (deps.buffer.length > MAX_BUFFERED) {
    deps.dropped += deps.buffer.length - MAX_BUFFERED;
    deps.buffer = deps.buffer.slice(-MAX_BUFFERED);
    deps.log.warn(
      { dropped: deps.dropped },
      'sandbox request log: too many entries waiting for the database; the oldest dropped',
    );
  }
  if (deps.buffer.length >= BATCH_SIZE) void flush(deps);
  else schedule(deps);
}

async function list(
  deps: RequestLogDeps,
  scope: Scope,
  filters: RequestLogFilters,
  page: PageRequest,
): Promise<Page<LoggedRequest>> {
  const { ctx } = deps;
  await flush(deps);
  const rows = await keysetPage<SandboxRequestsTable>(filtered(ctx, scope, filters), 'sandbox_requests', page);
  return mapPage(rows, (row) => toLoggedRequest(row, ctx.config.sandboxRequestLog.bodies));
}

export function makeSandboxRequestLog(ctx: Ctx, log: Logger): SandboxRequestLog {
  const deps: RequestLogDeps = {
    ctx,
    log,
    buffer: [],
    timer: undefined,
    writing: Promise.resolve(),
    dropped: 0,
    failures: 0,
  };
  return {
    keepsBodies: ctx.config.sandboxRequestLog.bodies,
    arrival: bindDeps(deps, arrival),
    record: bindDeps(deps, record),
    flush: bindDeps(deps, flush),
    list: bindDeps(deps, list),
  };
}
