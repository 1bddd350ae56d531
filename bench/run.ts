/**
 * `npm run bench`: how many POST /transfer-out this service carries to the end on this machine, printed per
 * engine (SQLite always; PostgreSQL when BENCH_DATABASE_URL or TEST_DATABASE_URL names a server) as one
 * table, beside two bounds measured in the same run, rounds interleaved:
 *
 *   - raw SQL behind HTTP (bench/raw-sql-server.ts): the same HTTP and body validation, then the very rows a
 *     transfer-out's lifecycle writes, written straight to a database of the same engine and nothing else:
 *     what any service writing these rows over HTTP could reach here;
 *   - stateless baseline (bench/stateless-server.ts): the same HTTP and validation, a canned answer, no
 *     database: what serving the request costs before any work.
 *
 * A rate counts transfer-outs accepted and then carried to a terminal status: the load's time plus the wait
 * for the last one to settle. Only the ratios travel: the machine is shared, so each figure is set against
 * others taken seconds apart. bench/README.md says how to read the table; bench/lab/ holds the research
 * tools (Prism, CPU per lifecycle, profiles, A/B, growth…).
 *
 *   npm run bench                                            # 3 rounds of 5 s, 32 clients
 *   BENCH_SECONDS=10 BENCH_CONCURRENCY=64 npm run bench
 *   BENCH_DATABASE_URL=postgres://user@host:5432/db npm run bench   # SQLite, then PostgreSQL
 *   BENCH_ENGINES=postgresql npm run bench                   # one engine only (sqlite or postgresql)
 *
 * The server runs as an installation runs it: `payouts serve` from the build (which `npm run bench` makes
 * first), on plain Node; BENCH_SERVER=sources runs the TypeScript through tsx instead (the tests do).
 * Every loop is bounded by time and count; all traffic stays on 127.0.0.1.
 */
import { spawnServer, type ServerProcess } from '../test/helpers/processes.ts';
import { peakRssMb, ratio, target, x, type Result, type Target } from './lib/load.ts';
import { BENCH_SERVER, engineLabels, freshEngine, machine, makePlatform, open, serverUrl } from './lib/setup.ts';
import type { BenchPlatform, Engine } from './lib/setup.ts';
import {
  ceilingPlatform,
  drain,
  POOL_SIZE,
  rawHttpRound,
  startRawHttp,
  startStateless,
  transferLoad,
  type CeilingSide,
  type Monitor,
  type RawHttpRound,
} from './lib/transfer-rounds.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const ROUNDS = 3;
/** How long the wait for the last payment of a round may take before the run says it never settled. */
const DRAIN_LIMIT_S = 120;

/** The three parties of one engine, ready for load, and how to stop them all. */
interface Parties {
  service: { process: ServerProcess; http: Target; platform: BenchPlatform; monitor: Monitor };
  rawSql: { process: ServerProcess; side: CeilingSide };
  stateless: { process: ServerProcess; http: Target };
  stop(): Promise<void>;
}

async function startParties(engine: Engine, ceilingEngine: Engine): Promise<Parties> {
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const s of stops.splice(0).reverse()) await s().catch(() => undefined);
  };
  try {
    const setup = await open(engine);
    const platform = await makePlatform(setup.services, 'bench', CONCURRENCY);
    await setup.store.close();
    const ceiling = await ceilingPlatform(ceilingEngine, CONCURRENCY);
    const server = await spawnServer({ ...engine.env, JOB_POLL_MS: '50' }, undefined, BENCH_SERVER.options);
    stops.push(() => server.stop());
    const rawHttp = await startRawHttp(ceilingEngine, ceiling.lifecycle, ceiling.platform.payers, POOL_SIZE);
    stops.push(rawHttp.stop);
    const stateless = await startStateless();
    stops.push(() => stateless.stop());
    const monitor = await open(engine);
    stops.push(() => monitor.store.close());
    const ceilingMonitor = await open(ceilingEngine);
    stops.push(() => ceilingMonitor.store.close());
    const targets = {
      service: target(server.baseUrl, CONCURRENCY, platform.auth),
      rawSql: target(rawHttp.server.baseUrl, CONCURRENCY),
      stateless: target(stateless.baseUrl, CONCURRENCY),
    };
    stops.push(async () => {
      for (const t of Object.values(targets)) await t.pool.close();
    });
    return {
      service: { process: server, http: targets.service, platform, monitor },
      rawSql: {
        process: rawHttp.server,
        side: { platform: ceiling.platform, monitor: ceilingMonitor, http: targets.rawSql },
      },
      stateless: { process: stateless, http: targets.stateless },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

interface Round {
  service: Result;
  /** Seconds until the round's last payment was terminal, and how many were not when the wait gave up. */
  serviceDrain: { drainS: number; left: number };
  rawSql: RawHttpRound;
  stateless: Result;
}

async function round(parties: Parties, seconds: number): Promise<Round> {
  const { service, rawSql, stateless } = parties;
  const statelessResult = await transferLoad(stateless.http, service.platform, seconds, CONCURRENCY);
  const serviceResult = await transferLoad(service.http, service.platform, seconds, CONCURRENCY);
  const serviceDrain = await drain(service.monitor, service.platform, DRAIN_LIMIT_S);
  const rawSqlRound = await rawHttpRound(rawSql.side, seconds, CONCURRENCY, DRAIN_LIMIT_S);
  return { service: serviceResult, serviceDrain, rawSql: rawSqlRound, stateless: statelessResult };
}

/** A row of the table: what one party reached, averaged over the rounds. */
interface Row {
  name: string;
  perSecond: number;
  p50: number;
  p99: number;
  rssMb: number;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

function rows(rs: Round[], parties: Parties): { service: Row; rawSql: Row; stateless: Row } {
  const row = (name: string, results: Result[], perSecond: number[], pid: number): Row => ({
    name,
    perSecond: mean(perSecond),
    p50: mean(results.map((r) => r.p50)),
    p99: mean(results.map((r) => r.p99)),
    rssMb: peakRssMb(pid),
  });
  const rawSql = rs.map((r) => r.rawSql.result);
  return {
    service: row(
      'payouts serve',
      rs.map((r) => r.service),
      rs.map((r) => r.service.ops / (r.service.seconds + r.serviceDrain.drainS)),
      parties.service.process.pid,
    ),
    rawSql: row(
      'raw SQL behind HTTP',
      rawSql,
      rs.map((r) => r.rawSql.result.ops / (r.rawSql.result.seconds + r.rawSql.drainS)),
      parties.rawSql.process.pid,
    ),
    stateless: row(
      'stateless baseline',
      rs.map((r) => r.stateless),
      rs.map((r) => r.stateless.perSecond),
      parties.stateless.process.pid,
    ),
  };
}

/** What must hold for the figures to mean anything; a problem is written in capitals. */
function checks(rs: Round[]): { ok: boolean; line: string } {
  const sum = (f: (r: Round) => number) => rs.reduce((n, r) => n + f(r), 0);
  const failed = sum((r) => r.service.errors + r.rawSql.result.errors + r.stateless.errors);
  const left = sum((r) => r.serviceDrain.left + r.rawSql.left);
  const missing = sum((r) => r.rawSql.missing);
  const problems = [
    failed > 0 ? `${failed} FAILED REQUESTS` : '',
    left > 0 ? `${left} payments NOT TERMINAL after ${DRAIN_LIMIT_S} s` : '',
    missing !== 0 ? `${missing} ROWS MISSING behind HTTP (answered 201, no payment written)` : '',
  ].filter(Boolean);
  if (problems.length > 0) return { ok: false, line: `  CHECKS FAILED: ${problems.join('; ')}` };
  return {
    ok: true,
    line: '  checks: 0 failed requests; every accepted payment terminal; every 201 wrote its payment',
  };
}

/** Where each column of the table ends: a ratio's digits end there too, its × just past them. */
const COLUMN_ENDS = [56, 66, 76, 86];

function cells(name: string, values: string[]): string {
  let line = `  ${name}`;
  values.forEach((value, i) => {
    const digits = value.endsWith('×') ? value.slice(0, -1) : value;
    line = `${line.padEnd(COLUMN_ENDS[i]! - digits.length)}${value}`;
  });
  return line;
}

function table(label: Engine['label'], rs: Round[], parties: Parties): string[] {
  const { service, rawSql, stateless } = rows(rs, parties);
  const party = (r: Row) =>
    cells(r.name, [r.perSecond.toFixed(0), r.p50.toFixed(1), r.p99.toFixed(1), `${r.rssMb.toFixed(0)} MB`]);
  const against = (bound: Row) =>
    cells(`${service.name} ÷ ${bound.name}`, [
      x(ratio(service.perSecond, bound.perSecond)),
      x(ratio(service.p50, bound.p50)),
      x(ratio(service.p99, bound.p99)),
    ]);
  return [
    `\n${label}  (${CONCURRENCY} clients, ${ROUNDS} rounds of ${SECONDS} s each party, interleaved)`,
    cells('POST /transfer-out', ['transfer-outs/s', 'p50 ms', 'p99 ms', 'peak RSS']),
    party(service),
    party(rawSql),
    party(stateless),
    against(rawSql),
    against(stateless),
  ];
}

async function benchEngine(label: Engine['label']): Promise<boolean> {
  const engine = await freshEngine(label, 'run');
  const ceilingEngine = await freshEngine(label, 'ceiling');
  try {
    const parties = await startParties(engine, ceilingEngine);
    try {
      // Warm-up, not counted: a round's length for every party (JIT, pools, page cache).
      await round(parties, SECONDS);
      const rs: Round[] = [];
      for (let r = 0; r < ROUNDS; r++) rs.push(await round(parties, SECONDS));
      const verdict = checks(rs);
      console.log([...table(label, rs, parties), verdict.line].join('\n'));
      return verdict.ok;
    } finally {
      await parties.stop();
    }
  } finally {
    await engine.drop();
    await ceilingEngine.drop();
  }
}

console.log(`payouts bench — ${machine()}`);
console.log(`Server: ${BENCH_SERVER.label}`);
console.log('Ratios are of figures taken in this run; rates and times depend on the machine and on what else');
console.log('it runs. bench/README.md says how to read the table.');
let ok = true;
for (const label of engineLabels()) ok = (await benchEngine(label)) && ok;
if (!serverUrl()) console.log('\nPostgreSQL: skipped (set BENCH_DATABASE_URL to a server to bench it too)');
if (!ok) process.exitCode = 1;
