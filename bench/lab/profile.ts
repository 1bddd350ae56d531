/**
 * Where the time goes on the money path: statements per phase, and a CPU profile of a server under load.
 *
 * For each engine (SQLite; PostgreSQL when BENCH_DATABASE_URL or TEST_DATABASE_URL is set) it
 *   1. runs whole lifecycles one at a time in this process (the HTTP request over a real socket, then each
 *      job the request queued, run by id) and counts the SQL statements each phase sends: on PostgreSQL
 *      every statement is one round trip; on SQLite a statement is a call into the library;
 *   2. spawns `payouts serve` under `node --cpu-prof`, loads it with concurrent POST /transfer-out and
 *      quote + execute for PROFILE_SECONDS each, with a webhook receiver on this process so every event
 *      is delivered, stops it, and prints the self time of the CPU profile by area and its top functions.
 *
 *   npm run bench:lab:profile
 *   PROFILE_SECONDS=10 PROFILE_KEEP=1 npm run bench:lab:profile     # longer; keep the .cpuprofile files
 *   PROFILE_AB=old-tree,new-tree npm run bench:lab:profile           # A/B: no profiler; servers from the two
 *                                                                # source trees, alternating, same database
 *   PROFILE_PERF=1 npm run bench:lab:profile                         # on-CPU samples by Linux perf instead of
 *                                                                # V8's profile: µs per transfer-out lifecycle
 *                                                                # by area, kernel included (lib/perf.ts)
 *   PROFILE_WEBHOOKS=0 npm run bench:lab:profile                     # no webhook endpoint: the money path alone,
 *                                                                # as `npm run bench` loads it
 *   PROFILE_RATE=200 PROFILE_AB=… npm run bench:lab:profile          # at most 200 requests a second instead of
 *                                                                # as many as the server takes
 *   BENCH_ENGINES=postgresql npm run bench:lab:profile               # one engine only (sqlite or postgresql)
 *
 * Every loop is bounded by time and count; it only talks to 127.0.0.1.
 */
import type { ExternalAccountInput } from '../../src/domain/account-types.ts';
import { createServer, Agent, request, type Server } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/app.ts';
import { openServices } from '../../src/open-services.ts';
import { openStore } from '../../src/store/db.ts';
import { createPlatform } from '../../src/services/platforms.ts';
import type { Services } from '../../src/services/index.ts';
import type { Scope } from '../../src/context.ts';
import { BUILD } from '../../test/external-accounts/fixtures.ts';
import { spawnServer } from '../../test/helpers/processes.ts';
import { engineLabels } from '../lib/setup.ts';
import { areaOf } from './lib/areas.ts';
import { perfAvailable, printPerfAreas, recordPerf, removePerfMap, type PerfRecording } from './lib/perf.ts';
import { onStatement } from '../../test/helpers/statements.ts';

const SECONDS = Number(process.env.PROFILE_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const LIFECYCLES = 20;
const KEEP = process.env.PROFILE_KEEP === '1';
const RATE = Number(process.env.PROFILE_RATE ?? 0);

// ---------------------------------------------------------------------------------------------------------
// Counting statements

type Phase = string;
const counts = new Map<Phase, Map<string, number>>();
const elapsedMs = new Map<Phase, number>();
let phase: Phase | undefined;
let phaseStarted = 0;

/** Closes the phase that is running (adding its wall time) and opens `next`. */
function enter(next: Phase | undefined): void {
  if (phase !== undefined) elapsedMs.set(phase, (elapsedMs.get(phase) ?? 0) + performance.now() - phaseStarted);
  phase = next;
  phaseStarted = performance.now();
}

/** begin/commit/savepoint, select, insert, update, delete: what a statement does, from its first word. */
function verbOf(text: string): string {
  const word = /^\s*(\w+)/.exec(text)?.[1]?.toLowerCase() ?? '?';
  if (['begin', 'commit', 'rollback', 'savepoint', 'release'].includes(word)) return 'tx control';
  return word;
}

function countStatement({ text }: { text: string }): void {
  if (phase === undefined) return;
  let byVerb = counts.get(phase);
  if (!byVerb) counts.set(phase, (byVerb = new Map()));
  const verb = verbOf(text);
  byVerb.set(verb, (byVerb.get(verb) ?? 0) + 1);
}

interface Fixture {
  scope: Scope;
  auth: string;
  accountId: string;
  usdDestination: string;
  eurDestination: string;
}

async function makeFixture(services: Services, name: string, payerIndex: number, webhookUrl?: string) {
  const platform = await createPlatform(services.ctx, name);
  const scope: Scope = { platformId: platform.platformId, environment: 'sandbox' };
  if (webhookUrl) await services.platformConfig.update(scope, { webhookEndpoint: webhookUrl });
  const { tokenId, clientSecret } = platform.sandbox;
  const auth = `Basic ${Buffer.from(`${tokenId}:${clientSecret}`).toString('base64')}`;
  const payers: Fixture[] = [];
  for (let i = 0; i < payerIndex; i++) {
    const customer = await services.customers.create(scope, {
      customerType: 'INDIVIDUAL',
      platformCustomerId: `p${i}`,
    });
    const page = await services.internalAccounts.listCustomerAccounts(
      scope,
      { customerId: customer.id, currency: 'USD' },
      { limit: 1, order: 'asc' },
    );
    const usd = page.data[0]!;
    await services.internalAccounts.fundSandbox(scope, usd.id, 100_000_000_000);
    const account = (build: unknown) =>
      services.externalAccounts.create(scope, { ...(build as ExternalAccountInput), customerId: customer.id });
    payers.push({
      scope,
      auth,
      accountId: usd.id,
      usdDestination: (await account(BUILD.USD_ACCOUNT('000'))).id,
      eurDestination: (await account(BUILD.EUR_ACCOUNT('000'))).id,
    });
  }
  return payers;
}

// ---------------------------------------------------------------------------------------------------------
// HTTP

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function call(baseUrl: string, auth: string, method: string, path: string, body?: unknown) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string | number> = { authorization: auth };
  if (payload) Object.assign(headers, { 'content-type': 'application/json', 'content-length': payload.length });
  return new Promise<{ status: number; json: any }>((resolve, reject) => {
    const req = request(new URL(`/2025-10-13${path}`, baseUrl), { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const transferOut = (baseUrl: string, f: Fixture) =>
  call(baseUrl, f.auth, 'POST', '/transfer-out', {
    source: { accountId: f.accountId },
    destination: { accountId: f.usdDestination },
    amount: 1,
  });

async function quoteAndExecute(baseUrl: string, f: Fixture, counted?: (p: Phase) => void) {
  counted?.('POST /quotes');
  const quote = await call(baseUrl, f.auth, 'POST', '/quotes', {
    source: { sourceType: 'ACCOUNT', accountId: f.accountId },
    destination: { destinationType: 'ACCOUNT', accountId: f.eurDestination },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 1_000,
  });
  if (quote.status !== 201) return quote;
  counted?.('POST /quotes/{id}/execute');
  return call(baseUrl, f.auth, 'POST', `/quotes/${quote.json.id}/execute`);
}

interface Sink {
  url: string;
  server: Server;
  received: () => number;
  /** Milliseconds from each event's creation to its arrival here, in order of arrival. */
  lagsMs: number[];
}

/** The creation time of an event (its id is `Webhook:<UUIDv7>`, whose first 48 bits are Unix milliseconds). */
function createdAtMs(eventId: string): number | undefined {
  const hex = /^Webhook:([0-9a-f]{8})-([0-9a-f]{4})-7/.exec(eventId);
  return hex ? Number.parseInt(`${hex[1]}${hex[2]}`, 16) : undefined;
}

/** A webhook receiver that answers 200 to everything, as fast as it can, noting how late each event came. */
async function startSink(): Promise<Sink> {
  let received = 0;
  const lagsMs: number[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      const created = createdAtMs(String(req.headers['webhook-id']));
      if (created !== undefined && lagsMs.length < 1_000_000) lagsMs.push(Date.now() - created);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/hooks`, server, received: () => received, lagsMs };
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

// ---------------------------------------------------------------------------------------------------------
// 1. Statements per phase

const PHASE_OF_KIND: Record<string, string> = {
  'transaction.process': 'rail step job (transaction.process)',
  'transaction.finish': 'completion job (transaction.finish)',
  'webhook.deliver': 'webhook delivery job (per event)',
};

/** Runs every job that is due, one by one by id, counting each under its kind's phase. */
async function runJobsCounted(services: Services, jobsPerPhase: Map<Phase, number>): Promise<void> {
  for (let guard = 0; guard < 100; guard++) {
    enter(undefined);
    const due = await services.ctx.store.db
      .selectFrom('jobs')
      .select(['id', 'kind'])
      .where('status', '=', 'pending')
      .where('run_at', '<=', BigInt(Date.now()))
      .orderBy('run_at')
      .orderBy('id')
      .executeTakeFirst();
    if (!due) return;
    const name = PHASE_OF_KIND[due.kind] ?? due.kind;
    jobsPerPhase.set(name, (jobsPerPhase.get(name) ?? 0) + 1);
    enter(name);
    await services.worker.runNow(due.id);
    enter(undefined);
  }
}

async function countPhases(label: string, env: Record<string, string>): Promise<void> {
  const sink = await startSink();
  const app = await createApp(loadConfig({ ...env, RUN_WORKERS: 'false', ALLOW_PRIVATE_WEBHOOK_URLS: 'true' }));
  try {
    const [f] = await makeFixture(app.services, `count-${label}`, 1, sink.url);
    await runJobsCounted(app.services, new Map()); // the TEST event a new endpoint gets
    counts.clear();
    elapsedMs.clear();
    const baseUrl = await app.http.listen({ port: 0, host: '127.0.0.1' });
    const requests = new Map<Phase, number>();
    const jobs = new Map<Phase, number>();
    const counted = (p: Phase) => {
      enter(p);
      requests.set(p, (requests.get(p) ?? 0) + 1);
    };
    for (let i = 0; i < LIFECYCLES; i++) {
      counted('POST /transfer-out');
      if ((await transferOut(baseUrl, f!)).status !== 201) throw new Error('transfer-out failed');
      enter(undefined);
      await runJobsCounted(app.services, jobs);
      if ((await quoteAndExecute(baseUrl, f!, counted)).status !== 200) throw new Error('quote flow failed');
      await runJobsCounted(app.services, jobs);
      enter(undefined);
    }
    const per = new Map([...requests, ...jobs]);
    printCounts(`${label}: SQL statements per phase (mean of ${LIFECYCLES} lifecycles, run one at a time)`, per);
  } finally {
    enter(undefined);
    await app.close();
    sink.server.close();
  }
}

function printCounts(title: string, per: Map<Phase, number>): void {
  const verbs = ['tx control', 'select', 'insert', 'update', 'delete'];
  console.log(`\n${title}`);
  console.log(`  | phase | runs | ms (alone) | statements | ${verbs.join(' | ')} |`);
  console.log(`  |---|--:|--:|--:|${verbs.map(() => '--:').join('|')}|`);
  for (const [name, runs] of per) {
    const byVerb = counts.get(name) ?? new Map<string, number>();
    const total = [...byVerb.values()].reduce((a, b) => a + b, 0);
    const cells = verbs.map((v) => ((byVerb.get(v) ?? 0) / runs).toFixed(1));
    const ms = ((elapsedMs.get(name) ?? 0) / runs).toFixed(2);
    console.log(`  | ${name} | ${runs} | ${ms} | ${(total / runs).toFixed(1)} | ${cells.join(' | ')} |`);
  }
}

// ---------------------------------------------------------------------------------------------------------
// 2. CPU profile under load

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function areaOfFrame(frame: ProfileNode['callFrame']): string {
  if (frame.url === '') {
    if (frame.functionName === '(garbage collector)') return 'garbage collection';
    if (frame.functionName === '(idle)') return 'idle';
    if (frame.functionName === '(program)') return 'V8 (compiler, runtime)';
    return 'native calls (SQLite, crypto, JSON, Buffer)';
  }
  return areaOf(frame.url);
}

function summarize(label: string, file: string): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const areas = new Map<string, number>();
  const functions = new Map<string, { area: string; us: number }>();
  for (const [id, us] of selfUs) {
    const { callFrame } = byId.get(id)!;
    const area = areaOfFrame(callFrame);
    areas.set(area, (areas.get(area) ?? 0) + us);
    const where = callFrame.url.replace(/^.*\/(node_modules|src)\//, '$1/').replace(/^file:\/\//, '');
    const key = `${callFrame.functionName || '(anonymous)'} ${where}:${callFrame.lineNumber + 1}`;
    const entry = functions.get(key) ?? { area, us: 0 };
    entry.us += us;
    functions.set(key, entry);
  }
  const busy = [...areas].filter(([a]) => a !== 'idle').reduce((s, [, us]) => s + us, 0);
  console.log(`\n${label}: server CPU by area (self time; ${(busy / 1e6).toFixed(1)} s busy of the profile)`);
  console.log('  | area | share of busy CPU |');
  console.log('  |---|--:|');
  for (const [area, us] of [...areas].filter(([a]) => a !== 'idle').sort((a, b) => b[1] - a[1]))
    console.log(`  | ${area} | ${((100 * us) / busy).toFixed(1)} % |`);
  console.log(`\n${label}: top functions by self time`);
  for (const [key, { area, us }] of [...functions]
    .filter(([, f]) => f.area !== 'idle')
    .sort((a, b) => b[1].us - a[1].us)
    .slice(0, Number(process.env.PROFILE_TOP ?? 25)))
    console.log(`  ${((100 * us) / busy).toFixed(1).padStart(5)} %  ${key}  [${area}]`);
}

/**
 * CONCURRENCY clients send `op` back to back for SECONDS, or, with PROFILE_RATE, at most that many a second
 * in all (an offered load the server can keep up with: does delivery keep up with it too?).
 */
async function saturate(op: () => Promise<boolean>): Promise<{ ok: number; perSecond: number; errors: number }> {
  let ok = 0;
  let errors = 0;
  let issued = 0;
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline && ok + errors < 200_000) {
        const dueAt = RATE > 0 ? started + (issued++ * 1000) / RATE : 0;
        if (dueAt > performance.now()) await new Promise((resolve) => setTimeout(resolve, dueAt - performance.now()));
        if (performance.now() >= deadline) break;
        if (await op()) ok++;
        else errors++;
      }
    }),
  );
  return { ok, perSecond: ok / ((performance.now() - started) / 1000), errors };
}

interface LoadResult {
  transfers: number;
  flows: number;
  /** Events delivered per second over both phases. */
  webhooks: number;
  /** Events delivered per second while transfer-outs ran (each queues three: PENDING, PROCESSING, COMPLETED). */
  transferHooks: number;
  /** Event creation → arrival at the receiver, over both phases: median and 99th percentile (ms). */
  lagP50: number;
  lagP99: number;
}

/**
 * Warms up, then saturates the server with transfer-outs, then with quote + execute flows. `watch` is
 * started after the warm-up and stopped after the transfer-outs, told how many were accepted.
 */
async function load(
  baseUrl: string,
  payers: Fixture[],
  sink: Sink,
  watch?: { start(): Promise<void>; stop(transfers: number): Promise<void> },
): Promise<LoadResult> {
  let next = 0;
  const payer = () => payers[next++ % payers.length]!;
  await saturate(async () => (await transferOut(baseUrl, payer())).status === 201);
  const before = sink.received();
  const firstLag = sink.lagsMs.length;
  await watch?.start();
  const started = performance.now();
  const transfers = await saturate(async () => (await transferOut(baseUrl, payer())).status === 201);
  await watch?.stop(transfers.ok);
  const transferHooks = (sink.received() - before) / ((performance.now() - started) / 1000);
  const flows = await saturate(async () => (await quoteAndExecute(baseUrl, payer())).status === 200);
  const webhooks = (sink.received() - before) / ((performance.now() - started) / 1000);
  const lags = sink.lagsMs.slice(firstLag);
  const [lagP50, lagP99] = [percentile(lags, 50), percentile(lags, 99)];
  return { transfers: transfers.perSecond, flows: flows.perSecond, webhooks, transferHooks, lagP50, lagP99 };
}

/** Drops the jobs a stopped server left queued, so the next server of an A/B starts with no backlog. */
async function clearQueue(env: Record<string, string>): Promise<void> {
  const store = openStore({ dataDir: env.DATA_DIR!, databaseUrl: env.DATABASE_URL });
  try {
    await store.db.updateTable('jobs').set({ status: 'done' }).where('status', 'in', ['pending', 'running']).execute();
  } finally {
    await store.close();
  }
}

async function fixtures(label: string, env: Record<string, string>, sinkUrl: string): Promise<Fixture[]> {
  const { store, services } = await openServices(loadConfig({ ...env, ALLOW_PRIVATE_WEBHOOK_URLS: 'true' }));
  const endpoint = process.env.PROFILE_WEBHOOKS === '0' ? undefined : sinkUrl;
  try {
    return await makeFixture(services, `profile-${label}`, CONCURRENCY, endpoint);
  } finally {
    await store.close();
  }
}

const SERVER_ENV = { JOB_POLL_MS: '50', ALLOW_PRIVATE_WEBHOOK_URLS: 'true' };

/**
 * PROFILE_PERF=1: perf's on-CPU samples of the server during the transfer-outs, by area, per lifecycle,
 * instead of V8's CPU profile (which samples wall time: see lib/perf-samples.ts).
 */
const PERF = process.env.PROFILE_PERF === '1';

async function profileServer(label: string, env: Record<string, string>, profileDir: string): Promise<void> {
  const sink = await startSink();
  const payers = await fixtures(label, env, sink.url);
  const dir = join(profileDir, label);
  const profiler = PERF ? ['--perf-basic-prof'] : ['--cpu-prof', `--cpu-prof-dir=${dir}`];
  const server = await spawnServer({ ...env, ...SERVER_ENV }, 60_000, {
    command: [process.execPath, ...profiler, '--import', 'tsx', 'src/main.ts', 'serve'],
  });
  let recording: PerfRecording | undefined;
  let perfAreas: Awaited<ReturnType<PerfRecording['stop']>> | undefined;
  let lifecycles = 0;
  const watch = {
    start: async () => void (recording = await recordPerf(server.pid, join(profileDir, `${label}.perf.data`))),
    stop: async (transfers: number) => {
      lifecycles = transfers;
      perfAreas = await recording!.stop();
    },
  };
  try {
    const r = await load(server.baseUrl, payers, sink, PERF ? watch : undefined);
    console.log(
      `\n${label} under the profiler (slower than without): transfer-out ${r.transfers.toFixed(0)}/s, ` +
        `quote + execute ${r.flows.toFixed(0)}/s, webhooks delivered ${r.webhooks.toFixed(0)}/s ` +
        `(${r.transferHooks.toFixed(0)}/s during transfer-outs), ` +
        `event → receiver p50 ${r.lagP50} ms, p99 ${r.lagP99} ms`,
    );
  } finally {
    await server.stop();
    if (PERF) removePerfMap(server.pid);
    sink.server.close();
  }
  if (perfAreas) return printPerfAreas(`${label}: server CPU during the transfer-outs`, perfAreas, lifecycles);
  // The main thread's profile (thread 0); tsx's loader thread writes one of its own.
  const file = readdirSync(dir).find((f) => /\.0\.\d+\.cpuprofile$/.test(f));
  if (!file) throw new Error(`the server wrote no CPU profile in ${dir}`);
  summarize(label, join(dir, file));
  if (KEEP) console.log(`  profile kept: ${join(dir, file)}`);
}

/** Same database, same load, servers from two source trees taken in turn: ratios from one sitting. */
async function abServers(label: string, env: Record<string, string>, trees: string[]): Promise<void> {
  const sink = await startSink();
  const payers = await fixtures(label, env, sink.url);
  const results = new Map<string, LoadResult[]>(trees.map((t) => [t, []]));
  const rounds = Number(process.env.PROFILE_ROUNDS ?? 3);
  try {
    for (let round = 0; round < rounds; round++) {
      for (const tree of round % 2 === 0 ? trees : [...trees].reverse()) {
        const server = await spawnServer({ ...env, ...SERVER_ENV }, 60_000, {
          command: [process.execPath, '--import', 'tsx', 'src/main.ts', 'serve'],
          cwd: tree,
        });
        try {
          results.get(tree)!.push(await load(server.baseUrl, payers, sink));
        } finally {
          await server.stop();
          await clearQueue(env);
        }
      }
    }
  } finally {
    sink.server.close();
  }
  const mean = (rs: LoadResult[], k: keyof LoadResult) => rs.reduce((s, r) => s + r[k], 0) / rs.length;
  const hooks = process.env.PROFILE_WEBHOOKS === '0' ? 'no webhook endpoint' : 'webhooks with a receiver on';
  console.log(`\n${label} A/B, ${rounds} alternating rounds (per second; ${hooks})`);
  const base = results.get(trees[0]!)!;
  for (const [tree, rs] of results) {
    const cells = (['transfers', 'flows', 'webhooks', 'transferHooks', 'lagP50', 'lagP99'] as const).map(
      (k) => `${k} ${rs.map((r) => r[k].toFixed(0)).join('/')} (x${(mean(rs, k) / mean(base, k)).toFixed(2)})`,
    );
    console.log(`  ${tree}: ${cells.join('  ')}`);
  }
}

// ---------------------------------------------------------------------------------------------------------

async function engines(
  dataDir: string,
  secret: string,
  each: (label: string, env: Record<string, string>) => Promise<void>,
) {
  const base = { SECRET_KEY: secret, LOG_LEVEL: 'warn' };
  // BENCH_ENGINES picks them as it does for the other benches.
  const labels = engineLabels();
  if (labels.includes('SQLite'))
    await each('SQLite', { ...base, DATA_DIR: join(dataDir, `sqlite-${randomBytes(4).toString('hex')}`) });
  const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!serverUrl) return console.log('\nPostgreSQL: skipped (set TEST_DATABASE_URL or BENCH_DATABASE_URL)');
  if (!labels.includes('PostgreSQL')) return;
  const name = `payouts_profile_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  try {
    await each('PostgreSQL', { ...base, DATA_DIR: join(dataDir, 'pg'), DATABASE_URL: url.toString() });
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'payouts-profile-'));
  const secret = randomBytes(32).toString('hex');
  try {
    if (PERF && !perfAvailable())
      throw new Error('PROFILE_PERF=1 needs Linux perf on the PATH (Debian: apt-get install linux-perf)');
    const ab = process.env.PROFILE_AB?.split(',');
    if (ab) return await engines(dataDir, secret, (l, e) => abServers(l, e, ab));
    onStatement(countStatement);
    if (process.env.PROFILE_ONLY !== 'cpu') await engines(dataDir, secret, countPhases);
    if (process.env.PROFILE_ONLY !== 'count') await engines(dataDir, secret, (l, e) => profileServer(l, e, dataDir));
  } finally {
    agent.destroy();
    if (!KEEP) rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
