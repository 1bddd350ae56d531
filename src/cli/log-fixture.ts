// `payouts logs export --fixture`: a span of the sandbox request log, recorded with its bodies, as a fixtures
// file (cli/fixtures.ts) that `payouts fixtures FILE` replays into any workspace. Pure: entries in, file out.
//
// What becomes a step: each request answered 2xx that changed something (POST, PUT, PATCH, DELETE), in the
// order it arrived, and a GET only when a later step uses an id that first appeared in its answer (a list of a
// customer's internal accounts, say). Left out: refused or dropped requests, a repeated Idempotency-Key (its
// answer was the first one's), the workspace's own snapshots, restores and resets, and webhook entries.
//
// Ids: every id an answer holds (`Customer:…`, `InternalAccount:…`) is remembered with where it was, the first
// time it appears; wherever a later request names it (in its path, query or body) it is written as a step
// reference (`${customer:id}`, `${usd_account:data.0.id}`), so the replay uses the ids its own answers give.
import type { LoggedRequest } from '../services/sandbox-requests.ts';

/** An id as the API writes them: a type, a colon, a UUID. */
const ID = /^[A-Z][A-Za-z]*:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ID_ANYWHERE = /[A-Z][A-Za-z]*:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The workspace's own state operations: a replay into another workspace has no snapshot to restore. */
const NOT_REPLAYED = /^\/sandbox\/(snapshots|reset|requests|faults|workspaces)(\/|$)/;
/** How deep an answer is searched for ids. */
const MAX_DEPTH = 12;

export interface ExportedStep {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
}

export interface ExportedFixture {
  description: string;
  fixtures: ExportedStep[];
}

export interface Export {
  file: ExportedFixture;
  /** What a person should know: ids no step created, redacted values, entries left out. */
  warnings: string[];
}

/** Where an id was first seen: the step and the path in its answer. */
type Origins = Map<string, string>;

/** Every id string in an answer, with its dotted path; the top-level `id` first, so it is the one kept. */
function* idsIn(value: unknown, path: string[], depth = 0): Generator<[string, string]> {
  if (depth > MAX_DEPTH) return;
  if (typeof value === 'string') {
    if (ID.test(value)) yield [value, path.join('.')];
    return;
  }
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* idsIn(item, [...path, String(i)], depth + 1);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const entries = Object.entries(value);
  entries.sort(([a], [b]) => (a === 'id' ? -1 : b === 'id' ? 1 : 0));
  for (const [key, item] of entries) if (!key.includes('.')) yield* idsIn(item, [...path, key], depth + 1);
}

/** A literal `${` of the recorded text is `$${` in a fixtures file. */
const escapeText = (text: string) => text.replaceAll('${', '$${');

interface Rewrite {
  origins: Origins;
  /** The steps whose answers were referred to (a GET is kept only then). */
  used: Set<string>;
  unknown: Set<string>;
}

/** A string of the recording with every known id written as a reference to the step that created it. */
function rewriteText(text: string, rw: Rewrite): string {
  let out = '';
  let last = 0;
  for (const match of text.matchAll(ID_ANYWHERE)) {
    const id = match[0];
    const origin = rw.origins.get(id);
    out += escapeText(text.slice(last, match.index));
    last = match.index + id.length;
    if (origin === undefined) {
      rw.unknown.add(id);
      out += id;
      continue;
    }
    rw.used.add(origin.slice(0, origin.indexOf(':')));
    out += `\${${origin}}`;
  }
  return out + escapeText(text.slice(last));
}

function rewriteValue(value: unknown, rw: Rewrite): unknown {
  if (typeof value === 'string') return rewriteText(value, rw);
  if (Array.isArray(value)) return value.map((item) => rewriteValue(item, rw));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewriteValue(v, rw)]));
  return value;
}

/** A step name from the path's words: POST /customers/external-accounts → customers_external_accounts. */
function nameFor(entry: LoggedRequest, taken: Set<string>): string {
  const words = entry.path
    .split('/')
    .filter((segment) => segment !== '' && !ID.test(segment) && !segment.includes(':'))
    .map((segment) => segment.replace(/[^A-Za-z0-9]+/g, '_'));
  const verb = entry.method === 'POST' ? [] : [entry.method.toLowerCase()];
  const joined = [...verb, ...words].join('_').slice(0, 56);
  const base = /^[A-Za-z]/.test(joined) ? joined : `step_${joined}`.slice(0, 56);
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
  taken.add(name);
  return name;
}

/** Why an entry cannot be a step, or undefined when it can. */
function leftOut(entry: LoggedRequest, seenKeys: Set<string>): string | undefined {
  if (entry.method === 'WEBHOOK') return 'a webhook, not a request';
  if (entry.status === null || entry.status < 200 || entry.status > 299) return `answered ${entry.status ?? 'nothing'}`;
  if (NOT_REPLAYED.test(entry.path)) return 'a sandbox state operation of this workspace';
  if (entry.idempotencyKey !== null && seenKeys.has(`${entry.method} ${entry.path} ${entry.idempotencyKey}`))
    return 'a repeated Idempotency-Key (the first answer was replayed)';
  if (!CHANGES.has(entry.method) && entry.method !== 'GET') return `method ${entry.method}`;
  return undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** A body cut in the log (past 16 KiB) is kept as a string: it cannot be sent again as it was. */
function bodyProblem(entry: LoggedRequest): string | undefined {
  if (typeof entry.requestBody === 'string') return 'its request body was cut in the log (longer than 16 KiB)';
  if (entry.requestBody !== null && entry.requestBody !== undefined && !isObject(entry.requestBody))
    return 'its request body is not a JSON object';
  return undefined;
}

/**
 * The fixtures file of `entries` (oldest first, as they arrived), and what a person should know about it.
 * Throws when the log holds no bodies: a request without its body cannot be replayed.
 */
export function fixtureFromLog(entries: LoggedRequest[], description: string): Export {
  const warnings: string[] = [];
  if (entries.some((e) => e.method !== 'WEBHOOK' && !('requestBody' in e)))
    throw new Error(
      'the request log holds no bodies: start the server with SANDBOX_REQUEST_LOG_BODIES=true, and record again',
    );
  const rw: Rewrite = { origins: new Map(), used: new Set(), unknown: new Set() };
  const seenKeys = new Set<string>();
  const taken = new Set<string>(['env']);
  const steps: Array<ExportedStep & { get: boolean }> = [];
  for (const entry of entries) {
    const why = leftOut(entry, seenKeys);
    if (why !== undefined) {
      if (entry.method !== 'WEBHOOK' && entry.method !== 'GET')
        warnings.push(`left out ${entry.id} ${entry.method} ${entry.path}: ${why}`);
      continue;
    }
    const problem = bodyProblem(entry);
    if (problem) throw new Error(`${entry.id} ${entry.method} ${entry.path}: ${problem}`);
    if (entry.idempotencyKey !== null) seenKeys.add(`${entry.method} ${entry.path} ${entry.idempotencyKey}`);
    const name = nameFor(entry, taken);
    const query = typeof entry.query === 'string' && entry.query !== '' ? `?${entry.query}` : '';
    // An id in the query is percent-encoded there (`Customer%3A…`): read as the API writes it, it can be found.
    const rawPath = `${entry.path}${query.replace(/%3A/gi, ':')}`;
    const step: ExportedStep & { get: boolean } = {
      name,
      method: entry.method as ExportedStep['method'],
      path: rewriteText(rawPath, rw),
      get: entry.method === 'GET',
    };
    if (isObject(entry.requestBody) && entry.method !== 'GET' && entry.method !== 'DELETE') {
      if (JSON.stringify(entry.requestBody).includes('"[redacted]"'))
        warnings.push(
          `step "${name}": its body held a secret, recorded as [redacted]: put the value in before replaying`,
        );
      step.body = rewriteValue(entry.requestBody, rw) as Record<string, unknown>;
    }
    steps.push(step);
    for (const [id, path] of idsIn(entry.responseBody, []))
      if (!rw.origins.has(id) && path !== '') rw.origins.set(id, `${name}:${path}`);
  }
  // A read stays only when a later step needs an id it brought.
  const kept = steps.filter((s) => !s.get || rw.used.has(s.name)).map(({ get: _get, ...step }) => step);
  for (const id of rw.unknown)
    warnings.push(`${id} is named by a step but created before the span exported: the replay sends it as it is`);
  if (kept.length === 0)
    throw new Error('no request of the span can be replayed (none answered 2xx and changed something)');
  return { file: { description, fixtures: kept }, warnings };
}
