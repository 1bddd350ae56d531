// `payouts logs tail`: a sandbox workspace's request log in the terminal, as `stripe logs tail` shows a
// Stripe account's: the recent requests, then every new one as it comes, until Ctrl-C. It reads the log
// over the HTTP API (GET /sandbox/requests), so it works against any running server, local or shared.
// `payouts logs export --fixture FILE` turns a span of it (recorded with bodies) into a fixtures file
// (cli/log-fixture.ts does the turning).
import type { LoggedRequest } from '../../services/sandbox-requests.ts';
import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { API_OPTIONS, apiClientOf, expectOk, type ApiClient } from '../api-client.ts';
import { stringOption, type CliCommand, type CliInput } from '../command.ts';

/** How often a follow asks for new entries. */
const POLL_MS = 500;
/**
 * Another server process writes its entries up to 500 ms after they arrived (and a slow request is logged
 * at its arrival time when it ends): each poll looks this far behind the newest entry shown, and skips the
 * ones already printed.
 */
const LOOK_BACK_MS = 60_000;
const PAGE = 100;
/** Pages one poll may read: a burst beyond them is shown in part, the rest skipped with a note. */
const MAX_PAGES_PER_POLL = 10;

/** An entry as GET /sandbox/requests answers it. */
type Entry = LoggedRequest;

interface Page {
  data: Entry[];
  nextCursor?: string;
}

const FILTERS = [
  { flags: '--method <method>', description: 'only this method', query: 'method' },
  { flags: '--path <prefix>', description: 'only paths starting with this, such as /customers', query: 'path' },
  { flags: '--status <status>', description: 'an exact status (404) or a class (4xx)', query: 'status' },
  { flags: '--error-code <code>', description: 'only answers with this error code', query: 'errorCode' },
  { flags: '--idempotency-key <key>', description: 'only requests with this Idempotency-Key', query: 'idempotencyKey' },
  { flags: '--request-id <id>', description: 'only the request with this X-Request-Id', query: 'requestId' },
  { flags: '--since <time>', description: 'only requests from this time on (RFC 3339)', query: 'since' },
] as const;

/** One line a person reads: time, status, method and path, latency, request id, then what is notable. */
export function formatEntry(e: Entry): string {
  const extras = [
    e.errorCode,
    e.idempotencyKey !== null && `idempotency-key=${e.idempotencyKey}`,
    e.faultId !== null && `fault=${e.faultId}`,
  ].filter(Boolean);
  const status = e.status === null ? 'DROP' : String(e.status);
  const line = `${e.time}  ${status.padEnd(4)} ${e.method.padEnd(6)} ${e.path}  ${e.latencyMs} ms  ${e.requestId}`;
  return extras.length > 0 ? `${line}  ${extras.join('  ')}` : line;
}

function queryOf(input: CliInput): URLSearchParams {
  const query = new URLSearchParams();
  for (const filter of FILTERS) {
    const name = filter.flags.slice(2, filter.flags.indexOf(' ')).replace(/-(\w)/g, (_m, c: string) => c.toUpperCase());
    const value = stringOption(input.options, name);
    if (value !== undefined) query.set(filter.query, value);
  }
  return query;
}

async function page(client: ApiClient, query: URLSearchParams): Promise<Page> {
  const request = { method: 'GET', path: `/sandbox/requests?${query.toString()}` };
  return expectOk(request, await client.call(request)).body as Page;
}

/** Entries newer than what was shown (or not shown yet within the look-back), oldest first. */
async function newEntries(client: ApiClient, base: URLSearchParams, sinceMs: number | undefined): Promise<Entry[]> {
  const query = new URLSearchParams(base);
  query.set('limit', String(PAGE));
  if (sinceMs !== undefined) query.set('since', new Date(sinceMs).toISOString());
  const found: Entry[] = [];
  for (let i = 0; i < MAX_PAGES_PER_POLL; i++) {
    const answer = await page(client, query);
    found.push(...answer.data);
    if (!answer.nextCursor) break;
    query.set('cursor', answer.nextCursor);
  }
  return found.reverse();
}

async function tail(input: CliInput): Promise<number> {
  const client = await apiClientOf(input);
  const limit = Number(stringOption(input.options, 'limit') ?? '10');
  if (!Number.isInteger(limit) || limit < 0 || limit > 100) input.fail('--limit takes a whole number from 0 to 100');
  const json = input.options.json === true;
  const print = (e: Entry) => process.stdout.write(`${json ? JSON.stringify(e) : formatEntry(e)}\n`);
  const base = queryOf(input);

  const first = new URLSearchParams(base);
  first.set('limit', String(Math.max(limit, 1)));
  const recent = (await page(client, first)).data;
  const shown = new Map<string, number>(recent.map((e) => [e.id, Date.parse(e.time)]));
  for (const e of recent.slice(0, limit).reverse()) print(e);
  if (input.options.follow === false) return 0;
  // What arrived before the newest entry printed above is history, not news: a follow shows none of it.
  const floorMs = Math.max(0, ...shown.values());

  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  if (!json) process.stderr.write('payouts: following the request log; Ctrl-C to stop\n');
  try {
    while (!stop.signal.aborted) {
      await sleep(POLL_MS, undefined, { signal: stop.signal }).catch(() => undefined);
      if (stop.signal.aborted) break;
      const newest = Math.max(0, ...shown.values());
      // The look-back never reaches before a --since the user gave.
      const since = Math.max(newest - LOOK_BACK_MS, Date.parse(base.get('since') ?? '') || 0);
      const entries = await newEntries(client, base, since > 0 ? since : undefined);
      for (const e of entries) {
        if (shown.has(e.id) || Date.parse(e.time) < floorMs) continue;
        shown.set(e.id, Date.parse(e.time));
        print(e);
      }
      // Only what a later poll can still return needs remembering.
      for (const [id, at] of shown) if (at < newest - 2 * LOOK_BACK_MS) shown.delete(id);
    }
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
  return 0;
}

/** Pages an export reads at most: 100 000 entries, far past the largest log a workspace keeps. */
const MAX_EXPORT_PAGES = 1000;

/** The workspace's whole log in the span, oldest first (the API answers newest first). */
async function span(client: ApiClient, input: CliInput): Promise<Entry[]> {
  const query = new URLSearchParams();
  for (const name of ['since', 'until'] as const) {
    const value = stringOption(input.options, name);
    if (value !== undefined) query.set(name, value);
  }
  query.set('limit', String(PAGE));
  const found: Entry[] = [];
  for (let i = 0; i < MAX_EXPORT_PAGES; i++) {
    const answer = await page(client, query);
    found.push(...answer.data);
    if (!answer.nextCursor) break;
    query.set('cursor', answer.nextCursor);
  }
  found.reverse();
  const from = stringOption(input.options, 'from');
  if (from === undefined) return found;
  const at = found.findIndex((e) => e.id === from);
  if (at < 0) input.fail(`--from ${from}: no entry of the log (in the span asked for) has this id`);
  return found.slice(at);
}

async function exportFixture(input: CliInput): Promise<number> {
  const file = stringOption(input.options, 'fixture') ?? input.fail('--fixture FILE is required');
  const workspace = stringOption(input.options, 'workspace');
  // A workspace's credentials file (POST /sandbox/workspaces' answer, or one {tokenId, clientSecret}).
  const env = workspace
    ? {
        ...process.env,
        SANDBOX_CREDENTIALS_FILE: workspace,
        SANDBOX_TOKEN_ID: undefined,
        SANDBOX_CLIENT_SECRET: undefined,
      }
    : process.env;
  const client = await apiClientOf(input, env);
  const entries = await span(client, input);
  const { fixtureFromLog } = await import('../log-fixture.ts');
  let exported: ReturnType<typeof fixtureFromLog>;
  try {
    const first = entries[0]?.time ?? 'the start';
    exported = fixtureFromLog(entries, `Recorded from the sandbox request log, ${first} on (payouts logs export)`);
  } catch (err) {
    process.stderr.write(`payouts: ${(err as Error).message}; nothing was written\n`);
    return 1;
  }
  const text = `${JSON.stringify(exported.file, null, 2)}\n`;
  if (file === '-') process.stdout.write(text);
  else writeFileSync(file, text);
  for (const warning of exported.warnings) process.stderr.write(`payouts: ${warning}\n`);
  const where = file === '-' ? 'standard output' : file;
  process.stderr.write(
    `payouts: ${exported.file.fixtures.length} step(s) written to ${where}; replay with \`payouts fixtures ${file}\`\n`,
  );
  return 0;
}

export const logsCommands: CliCommand[] = [
  {
    path: ['logs', 'tail'],
    summary: "print a sandbox workspace's recent API requests, then each new one until Ctrl-C",
    options: [
      ...API_OPTIONS,
      ...FILTERS.map(({ flags, description }) => ({ flags, description })),
      { flags: '--limit <n>', description: 'how many recent requests to print first, 0 to 100 (default 10)' },
      { flags: '--no-follow', description: 'print the recent requests and stop' },
      { flags: '--json', description: 'print each request as one JSON line' },
    ],
    database: 'none',
    writes: false,
    run: tail,
  },
  {
    path: ['logs', 'export'],
    summary:
      "turn a span of a sandbox workspace's request log (recorded with bodies) into a fixtures file that " +
      '`payouts fixtures FILE` replays, ids written as references to earlier steps',
    options: [
      ...API_OPTIONS,
      { flags: '--fixture <file>', description: 'the fixtures file to write (- for standard output)', required: true },
      { flags: '--from <id>', description: 'start at this entry of the log (LogEntry:…), oldest first' },
      { flags: '--since <time>', description: 'only requests from this time on (RFC 3339)' },
      { flags: '--until <time>', description: 'only requests up to this time (RFC 3339)' },
      {
        flags: '--workspace <file>',
        description: "the workspace's credentials file (POST /sandbox/workspaces' answer, or {tokenId, clientSecret})",
      },
    ],
    database: 'none',
    writes: false,
    run: exportFixture,
  },
];
