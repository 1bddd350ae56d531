/**
 * POST /transfer-out against baselines measured in the same run, per engine (SQLite always; PostgreSQL
 * when BENCH_DATABASE_URL or TEST_DATABASE_URL names a server). Only the ratios mean anything: the machine
 * is shared, so every figure is set against another taken minutes apart, rounds interleaved.
 *
 *   - stateless baseline: bench/stateless-server.ts (same Fastify, same body schema and validation, a
 *     canned Transaction), and Prism's mock of the public contract when BENCH_PRISM=1;
 *   - raw-SQL ceiling: the rows one full lifecycle writes (captured by diffing the tables), written
 *     straight to a database of the same engine (bench/lib/raw-sql.ts);
 *   - the same rows behind HTTP (bench/raw-sql-server.ts): the stateless baseline's Fastify and validation,
 *     then the ceiling's writes, the rail step's after the answer: what any service writing these rows over
 *     HTTP would reach here if it did nothing else, so what a goal set against Prism leaves room for;
 *   - full lifecycle: after each round, the time until every accepted payment is terminal;
 *   - rounds: three, the third against the first; the server's peak RSS;
 *   - CPU per lifecycle: the server's process and each ceiling's, with PostgreSQL's beside each
 *     (bench/lab/lib/cpu.ts): what a lifecycle costs each party, steadier than a rate on a shared machine;
 *   - webhook drain: a local receiver as a platform's endpoint, event → receiver latency and events/s.
 *
 *   npm run bench:lab:transfer-out                              # defaults: 5 s rounds, 32 clients
 *   BENCH_SECONDS=10 BENCH_CONCURRENCY=64 npm run bench:lab:transfer-out
 *   BENCH_PRISM=1 npm run bench:lab:transfer-out                # with Prism (BENCH_PRISM_CONTRACT: its OpenAPI file)
 *   BENCH_WARMUP_SECONDS=1 npm run bench:lab:transfer-out       # each party's warm-up (default: one round's length)
 *   BENCH_SERVER=sources npm run bench:lab:transfer-out         # the sources through tsx instead of the build
 *   BENCH_PROCESSES=2 npm run bench:lab:transfer-out            # PostgreSQL served by two processes
 *   BENCH_ENGINES=postgresql npm run bench:lab:transfer-out     # one engine only (sqlite or postgresql)
 *
 * `npm run bench` (bench/run.ts) prints the headline of this one as a table: the service against the
 * stateless baseline and the raw-SQL bound behind HTTP, with latencies and peak RSS.
 *
 * The server is started as an installation runs it: `payouts serve` from the build (dist/, which the npm
 * script makes first) on plain Node. With BENCH_SERVER=sources it runs the TypeScript through tsx, as `npm
 * start` does: the same code, plus tsx's loader (about 30 MB of RSS).
 *
 * Every loop is bounded by time and count; all traffic stays on 127.0.0.1.
 */
import { existsSync } from 'node:fs';
import { freePort, runCommand, spawnDaemon, spawnServer, type ServerProcess } from '../../test/helpers/processes.ts';
import { waitFor } from '../../test/helpers/wait.ts';
import { captureLifecycle, describeLifecycle, type Lifecycle } from '../lib/lifecycle-rows.ts';
import { peakRssMb, percentile, ratio, target, x, type Result, type Target } from '../lib/load.ts';
import { pgCeiling, sqliteCeiling, type Ceiling } from '../lib/raw-sql.ts';
import {
  drain,
  POOL_SIZE,
  rawHttpRound,
  startRawHttp,
  startStateless,
  transferLoad,
  type CeilingSide,
  type Monitor,
  type RawHttpRound,
} from '../lib/transfer-rounds.ts';
import { cpuNow, cpuSince, type CpuReading, type CpuSplit } from './lib/cpu.ts';
import { startReceiver, type Receiver } from './lib/receiver.ts';
import {
  BENCH_SERVER,
  engineLabels,
  freshEngine,
  machine,
  makePlatform,
  serverUrl,
  open,
  type BenchPlatform,
  type Engine,
} from '../lib/setup.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? SECONDS);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const ROUNDS = 3;
const DRAIN_LIMIT_S = Number(process.env.BENCH_DRAIN_LIMIT_SECONDS ?? 120);
/** Server processes on PostgreSQL, all on one database, the load spread over them (SQLite has one writer). */
const PROCESSES = Number(process.env.BENCH_PROCESSES ?? 1);

interface Round {
  baseline: Result;
  prism?: Result | undefined;
  server: Result;
  drainS: number;
  left: number;
  ceiling: { lifecycles: number; seconds: number };
  /** The ceiling's rows behind HTTP (rawHttpRound). */
  rawHttp: RawHttpRound;
  /** CPU seconds of the round's service phase (load and drain), its ceiling and the ceiling behind HTTP. */
  cpu: { server: CpuSplit; ceiling: CpuSplit; rawHttp: CpuSplit };
}

async function startPrism(): Promise<Target | undefined> {
  if (process.env.BENCH_PRISM !== '1') return undefined;
  const port = await freePort();
  // The public contract is not ours to ship: BENCH_PRISM_CONTRACT names a copy of its OpenAPI file.
  const contract = process.env.BENCH_PRISM_CONTRACT ?? '/work/shared/reference/grid-openapi-2026-08.yaml';
  if (!existsSync(contract))
    throw new Error(
      `BENCH_PRISM=1 mocks the public contract: set BENCH_PRISM_CONTRACT to its OpenAPI file (no ${contract})`,
    );
  // Installed into npx's cache for the bench only, never a dependency. Its own binary is run, not npx, so
  // that stopping it stops the mock itself rather than a wrapper that would leave it behind.
  const which = await runCommand('npx', ['-y', '-p', '@stoplight/prism-cli', 'which', 'prism'], {
    env: process.env,
    timeoutMs: 300_000,
  });
  if (which.code !== 0) throw new Error(`could not install Prism: ${which.stderr}`);
  const prism = await spawnDaemon(
    which.stdout.trim(),
    ['mock', '-p', String(port), '-h', '127.0.0.1', contract],
    async () => (await fetch(`http://127.0.0.1:${port}/transfer-out`).catch(() => undefined)) !== undefined,
    'Prism mock',
    180_000,
  );
  stops.push(() => prism.stop());
  return target(`http://127.0.0.1:${port}`, CONCURRENCY, 'Basic Zm9vOmJhcg==', '');
}

const stops: Array<() => Promise<void>> = [];

async function rounds(
  cpu: { server: () => CpuReading; ceiling: () => CpuReading; rawHttp: () => CpuReading },
  server: Target,
  baseline: Target,
  prism: Target | undefined,
  side: CeilingSide & { ceiling: Ceiling },
  p: BenchPlatform,
  monitor: Monitor,
): Promise<Round[]> {
  const { ceiling, platform: ceilingPlatform } = side;
  // Warm-up, not counted: every party for a round's length (JIT, pools, page cache). On PostgreSQL the server's
  // optimizing compiler is busy for several seconds of load (perf: a quarter of its CPU in the first second, a
  // twentieth by the tenth); a one-second warm-up left its first round a fifth slower than the next two.
  await transferLoad(server, p, WARMUP_SECONDS, CONCURRENCY);
  await drain(monitor, p, DRAIN_LIMIT_S);
  await transferLoad(baseline, p, WARMUP_SECONDS, CONCURRENCY);
  if (prism) await transferLoad(prism, p, WARMUP_SECONDS, CONCURRENCY);
  await ceiling.run(ceilingPlatform.payers, WARMUP_SECONDS, CONCURRENCY);
  await rawHttpRound(side, WARMUP_SECONDS, CONCURRENCY, DRAIN_LIMIT_S);
  const out: Round[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const base = await transferLoad(baseline, p, SECONDS, CONCURRENCY);
    const prismResult = prism ? await transferLoad(prism, p, SECONDS, CONCURRENCY) : undefined;
    const serverFrom = cpu.server();
    const srv = await transferLoad(server, p, SECONDS, CONCURRENCY);
    const { drainS, left } = await drain(monitor, p, DRAIN_LIMIT_S);
    const serverCpu = cpuSince(serverFrom, cpu.server());
    const ceilingFrom = cpu.ceiling();
    const ceil = await ceiling.run(ceilingPlatform.payers, SECONDS, CONCURRENCY);
    const ceilingCpu = cpuSince(ceilingFrom, cpu.ceiling());
    const rawHttpFrom = cpu.rawHttp();
    const rawHttp = await rawHttpRound(side, SECONDS, CONCURRENCY, DRAIN_LIMIT_S);
    const used = { server: serverCpu, ceiling: ceilingCpu, rawHttp: cpuSince(rawHttpFrom, cpu.rawHttp()) };
    out.push({ baseline: base, prism: prismResult, server: srv, drainS, left, ceiling: ceil, rawHttp, cpu: used });
  }
  return out;
}

interface Webhooks {
  events: number;
  perSecond: number;
  p50: number;
  p99: number;
  missing: number;
}

/** Transfer-outs on the platform whose endpoint is the receiver; then every event's arrival against its time. */
async function webhookDrain(
  server: Target,
  hooks: BenchPlatform,
  receiver: Receiver,
  monitor: Monitor,
): Promise<Webhooks> {
  const started = Date.now();
  await transferLoad(server, hooks, SECONDS, CONCURRENCY);
  await drain(monitor, hooks, DRAIN_LIMIT_S);
  const pending = async () =>
    Number(
      (
        await monitor.store.db
          .selectFrom('events')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('platform_id', '=', hooks.scope.platformId)
          .where('delivery_state', '=', 'PENDING')
          .executeTakeFirstOrThrow()
      ).n,
    );
  await waitFor(async () => (await pending()) === 0, 'every webhook delivered', DRAIN_LIMIT_S * 1000, 50).catch(
    () => undefined,
  );
  const events = await monitor.store.db
    .selectFrom('events')
    .select(['id', 'created_at'])
    .where('platform_id', '=', hooks.scope.platformId)
    .where('created_at', '>=', BigInt(started))
    .execute();
  const latencies: number[] = [];
  let last = started;
  for (const e of events) {
    const at = receiver.arrivals.get(e.id);
    if (at === undefined) continue;
    latencies.push(at - Number(e.created_at));
    last = Math.max(last, at);
  }
  latencies.sort((a, b) => a - b);
  return {
    events: latencies.length,
    perSecond: latencies.length / Math.max(0.001, (last - started) / 1000),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    missing: events.length - latencies.length,
  };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/**
 * Milliseconds of CPU per lifecycle: the server's and the ceiling's own process, and PostgreSQL's beside each
 * (not read on SQLite). What a lifecycle costs each party, where throughput on a shared machine says little.
 */
function cpuPerLifecycle(rs: Round[]): string {
  const ms = (seconds: number, lifecycles: number) =>
    lifecycles > 0 ? ((seconds * 1000) / lifecycles).toFixed(2) : '?';
  const sum = (f: (r: Round) => number) => rs.reduce((total, r) => total + f(r), 0);
  const served = sum((r) => r.server.ops);
  const replayed = sum((r) => r.ceiling.lifecycles);
  const overHttp = sum((r) => r.rawHttp.result.ops);
  if (sum((r) => r.cpu.server.own) === 0) return 'n/a (no /proc)';
  // PostgreSQL's part is shown wherever it was read, even when a short round used less than a clock tick of it.
  const side = (who: string, split: (r: Round) => CpuSplit, n: number) => {
    const own = sum((r) => split(r).own);
    const read = rs.every((r) => split(r).postgres !== undefined);
    const postgres = sum((r) => split(r).postgres ?? 0);
    return `${who} ${ms(own, n)}${read ? ` + PostgreSQL ${ms(postgres, n)}` : ''}`;
  };
  const server = side('server', (r) => r.cpu.server, served);
  const ceiling = side('its process', (r) => r.cpu.ceiling, replayed);
  return `${server};  raw-SQL ceiling: ${ceiling};  behind HTTP: ${side('its server', (r) => r.cpu.rawHttp, overHttp)}`;
}

function report(label: string, lifecycle: Lifecycle, rs: Round[], hooks: Webhooks, rssMb: number[]): void {
  const accepted = mean(rs.map((r) => r.server.perSecond));
  // Full lifecycle: accepted payments over the load time plus the time their settlement took after it.
  const lifecycles = mean(rs.map((r) => r.server.ops / (r.server.seconds + r.drainS)));
  const base = mean(rs.map((r) => r.baseline.perSecond));
  const ceiling = mean(rs.map((r) => r.ceiling.lifecycles / r.ceiling.seconds));
  const rawHttp = mean(rs.map((r) => r.rawHttp.result.ops / (r.rawHttp.result.seconds + r.rawHttp.drainS)));
  const left = rs.reduce((n, r) => n + r.left + r.rawHttp.left, 0);
  const missing = rs.reduce((n, r) => n + r.rawHttp.missing, 0);
  const errors = rs.reduce((n, r) => n + r.server.errors, 0);
  const rawHttpErrors = rs.reduce((n, r) => n + r.rawHttp.result.errors, 0);
  const latency = (p: 'p50' | 'p99') => ratio(mean(rs.map((r) => r.server[p])), mean(rs.map((r) => r.baseline[p])));
  const first = rs[0]!;
  const third = rs[rs.length - 1]!;
  const lines = [
    `\n${label}  (${CONCURRENCY} clients, ${ROUNDS} rounds of ${SECONDS} s, interleaved` +
      `${rssMb.length > 1 ? `, ${rssMb.length} server processes` : ''})`,
    `  one lifecycle writes   ${describeLifecycle(lifecycle).join('  |  ')}`,
    `  RATIO transfer-out accepted / stateless baseline     ${x(ratio(accepted, base))}`,
    `  RATIO transfer-out full lifecycle / stateless        ${x(ratio(lifecycles, base))}`,
  ];
  const prism = rs.every((r) => r.prism) ? mean(rs.map((r) => r.prism!.perSecond)) : undefined;
  // The ceilings against Prism say what a Prism goal asks here: a goal above the one behind HTTP asks more
  // than any service writing these rows over HTTP could do on this machine.
  if (prism !== undefined)
    lines.push(
      `  RATIO transfer-out full lifecycle / Prism mock        ${x(ratio(lifecycles, prism))}`,
      `  RATIO raw-SQL ceiling / Prism mock                   ${x(ratio(ceiling, prism))}`,
      `  RATIO raw SQL behind HTTP / Prism mock               ${x(ratio(rawHttp, prism))}`,
    );
  lines.push(
    `  RATIO transfer-out full lifecycle / raw-SQL ceiling  ${x(ratio(lifecycles, ceiling))}`,
    `  RATIO transfer-out full lifecycle / raw SQL behind HTTP  ${x(ratio(lifecycles, rawHttp))}`,
    `  RATIO round 3 / round 1: server ${x(ratio(third.server.perSecond, first.server.perSecond))}` +
      `, stateless baseline ${x(ratio(third.baseline.perSecond, first.baseline.perSecond))} (the machine's drift)`,
    `  drain after each round (s)  ${rs.map((r) => r.drainS.toFixed(2)).join(' / ')}` +
      `; raw SQL behind HTTP ${rs.map((r) => r.rawHttp.drainS.toFixed(2)).join(' / ')}` +
      (left > 0 ? `   NOT TERMINAL: ${left} payments still pending after ${DRAIN_LIMIT_S} s` : '   all terminal') +
      (missing !== 0 ? `   ROWS MISSING: ${missing} accepted behind HTTP without their payment` : ''),
    `  latency at saturation, server / baseline: p50 ${x(latency('p50'))}, p99 ${x(latency('p99'))}`,
    `  CPU per full lifecycle (ms)  ${cpuPerLifecycle(rs)}`,
    `  webhook drain   ${hooks.events} events, ${hooks.perSecond.toFixed(0)}/s, event → receiver p50 ` +
      `${hooks.p50.toFixed(0)} ms p99 ${hooks.p99.toFixed(0)} ms` +
      (hooks.missing ? `, ${hooks.missing} NOT RECEIVED` : ''),
    `  server peak RSS ${rssMb.map((mb) => mb.toFixed(0)).join(' + ')} MB   (failed requests: ${errors}` +
      `; behind HTTP: ${rawHttpErrors})`,
    `  absolute, this machine now: server ${accepted.toFixed(0)}/s accepted, baseline ${base.toFixed(0)}/s, ` +
      `${prism === undefined ? '' : `Prism ${prism.toFixed(0)}/s, `}ceiling ${ceiling.toFixed(0)} lifecycles/s, ` +
      `behind HTTP ${rawHttp.toFixed(0)} lifecycles/s`,
  );
  console.log(lines.join('\n'));
}

/** The platforms, the captured lifecycle and the ceiling's own database, all made before any load. */
async function prepare(engine: Engine, ceilingEngine: Engine, receiver: Receiver, processes: number) {
  const setup = await open(engine);
  const sample = await makePlatform(setup.services, 'sample', 1);
  const lifecycle = await captureLifecycle(setup.store, setup.services, sample.scope, sample.payers[0]!);
  const main = await makePlatform(setup.services, 'bench', CONCURRENCY);
  const hooks = await makePlatform(setup.services, 'hooks', Math.min(CONCURRENCY, 8), receiver.url);
  await setup.store.close();
  const ceilingSetup = await open(ceilingEngine);
  const ceilingPlatform = await makePlatform(ceilingSetup.services, 'ceiling', CONCURRENCY);
  // The ceiling replays the sample's rows on its own platform's payers: its system accounts are the sample's.
  const ceilingLifecycle = await captureLifecycle(
    ceilingSetup.store,
    ceilingSetup.services,
    ceilingPlatform.scope,
    ceilingPlatform.payers[0]!,
  );
  await ceilingSetup.store.close();
  const ceiling = ceilingEngine.env.DATABASE_URL
    ? pgCeiling(ceilingEngine.env.DATABASE_URL, ceilingLifecycle, POOL_SIZE * processes)
    : sqliteCeiling(ceilingEngine.env.DATA_DIR!, ceilingLifecycle);
  return { main, hooks, lifecycle, ceiling, ceilingPlatform, ceilingLifecycle };
}

async function benchEngine(label: Engine['label']): Promise<void> {
  const engine = await freshEngine(label, 'run');
  const ceilingEngine = await freshEngine(label, 'ceiling');
  const receiver = await startReceiver();
  const servers: ServerProcess[] = [];
  let stateless: ServerProcess | undefined;
  const processes = label === 'PostgreSQL' ? PROCESSES : 1;
  try {
    const prepared = await prepare(engine, ceilingEngine, receiver, processes);
    const { main, hooks, lifecycle, ceiling, ceilingPlatform, ceilingLifecycle } = prepared;
    stops.push(() => ceiling.close());
    const rawHttp = await startRawHttp(ceilingEngine, ceilingLifecycle, ceilingPlatform.payers, POOL_SIZE * processes);
    stops.push(rawHttp.stop);
    const ceilingMonitor = await open(ceilingEngine);
    stops.push(() => ceilingMonitor.store.close());
    const side: CeilingSide & { ceiling: Ceiling } = {
      ceiling,
      platform: ceilingPlatform,
      monitor: ceilingMonitor,
      http: target(rawHttp.server.baseUrl, CONCURRENCY),
    };
    for (let n = 0; n < processes; n++)
      servers.push(await spawnServer({ ...engine.env, JOB_POLL_MS: '50' }, undefined, BENCH_SERVER.options));
    const urls = servers.map((s) => s.baseUrl);
    stateless = await startStateless();
    const monitor = await open(engine);
    stops.push(() => monitor.store.close());
    const serverTarget = target(urls, CONCURRENCY, main.auth);
    const baseTarget = target(stateless.baseUrl, CONCURRENCY);
    const prism = await startPrism();
    const pids = servers.map((s) => s.pid);
    const postgres = label === 'PostgreSQL';
    // The server's processes, and this one, which runs the ceiling.
    const cpu = {
      server: () => cpuNow(pids, postgres),
      ceiling: () => cpuNow([], postgres),
      rawHttp: () => cpuNow([rawHttp.server.pid], postgres),
    };
    const rs = await rounds(cpu, serverTarget, baseTarget, prism, side, main, monitor);
    const hookTarget = target(urls, CONCURRENCY, hooks.auth);
    const webhooks = await webhookDrain(hookTarget, hooks, receiver, monitor);
    report(
      label,
      lifecycle,
      rs,
      webhooks,
      servers.map((s) => peakRssMb(s.pid)),
    );
    for (const t of [serverTarget, baseTarget, hookTarget, side.http, ...(prism ? [prism] : [])]) await t.pool.close();
  } finally {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
    for (const s of servers) await s.stop();
    await stateless?.stop();
    await receiver.close();
    await engine.drop();
    await ceilingEngine.drop();
  }
}

console.log(`payouts bench — ${machine()}`);
console.log('Ratios of figures taken in this run; absolute rates depend on the machine and what else it runs.');
console.log(`Server: ${BENCH_SERVER.label}`);
for (const label of engineLabels()) await benchEngine(label);
if (!serverUrl()) console.log('\nPostgreSQL: skipped (set TEST_DATABASE_URL or BENCH_DATABASE_URL)');
