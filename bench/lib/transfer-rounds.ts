/**
 * What both transfer-out benches (bench/run.ts, the table a user reads, and bench/lab/transfer-out.ts, every
 * party in full) do the same way: POST /transfer-out under a closed loop, the wait until every accepted
 * payment is terminal, the two bounds' servers (bench/stateless-server.ts, bench/raw-sql-server.ts) and the
 * platform the raw-SQL bound writes for.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer, type ServerProcess } from '../../test/helpers/processes.ts';
import { waitFor } from '../../test/helpers/wait.ts';
import { captureLifecycle, saveLifecycle, type Lifecycle } from './lifecycle-rows.ts';
import { call, saturate, type Result, type Target } from './load.ts';
import { makePlatform, open, transferBody, unsettled, type BenchPlatform, type Engine, type Payer } from './setup.ts';

/** A connection to a bench database with no worker of its own, to count and wait on its rows. */
export type Monitor = Awaited<ReturnType<typeof open>>;

/** DATABASE_POOL_SIZE's default: the server's connections, and the raw-SQL bound's. */
export const POOL_SIZE = 10;

/** As many transfer-outs as `concurrency` clients get answered in `seconds`, one payer per client. */
export async function transferLoad(t: Target, p: BenchPlatform, seconds: number, concurrency: number): Promise<Result> {
  return saturate(
    async (i) => (await call(t, 'POST', '/transfer-out', transferBody(p.payers[i % p.payers.length]!))).status === 201,
    seconds,
    concurrency,
  );
}

/** The platform's payments, whatever their status. */
async function payments(monitor: Monitor, p: BenchPlatform): Promise<number> {
  const row = await monitor.store.db
    .selectFrom('transactions')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('platform_id', '=', p.scope.platformId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Seconds until no payment of the platform is PENDING or PROCESSING (or the limit), and how many are left. */
export async function drain(monitor: Monitor, p: BenchPlatform, limitSeconds: number) {
  const started = performance.now();
  let left = await unsettled(monitor.store, p.scope);
  await waitFor(
    async () => (left = await unsettled(monitor.store, p.scope)) === 0,
    'every accepted payment to be terminal',
    limitSeconds * 1000,
    50,
  ).catch(() => undefined);
  return { drainS: (performance.now() - started) / 1000, left };
}

/** Where the raw-SQL bound's rows go: its platform, a monitor that reads them back, and its server. */
export interface CeilingSide {
  platform: BenchPlatform;
  monitor: Monitor;
  http: Target;
}

/** One round of the raw-SQL bound behind HTTP: its load, then the wait until its payments are terminal. */
export interface RawHttpRound {
  result: Result;
  drainS: number;
  /** Its payments still PENDING or PROCESSING when the wait gave up. */
  left: number;
  /** Accepted transfer-outs whose payment row is not there (the server wrote what it answered 201 for). */
  missing: number;
}

export async function rawHttpRound(
  side: CeilingSide,
  seconds: number,
  concurrency: number,
  drainLimitSeconds: number,
): Promise<RawHttpRound> {
  const before = await payments(side.monitor, side.platform);
  const result = await transferLoad(side.http, side.platform, seconds, concurrency);
  const { drainS, left } = await drain(side.monitor, side.platform, drainLimitSeconds);
  const missing = result.ops - ((await payments(side.monitor, side.platform)) - before);
  return { result, drainS, left, missing };
}

/**
 * The raw-SQL bound's platform on its own database, and the rows one of its lifecycles writes (captured by
 * running one through the services), which the bound replays on the platform's payers.
 */
export async function ceilingPlatform(ceilingEngine: Engine, payers: number) {
  const setup = await open(ceilingEngine);
  try {
    const platform = await makePlatform(setup.services, 'ceiling', payers);
    const lifecycle = await captureLifecycle(setup.store, setup.services, platform.scope, platform.payers[0]!);
    return { platform, lifecycle };
  } finally {
    await setup.store.close();
  }
}

/** The raw-SQL bound behind HTTP (bench/raw-sql-server.ts), on the bound's database, with its lifecycle. */
export async function startRawHttp(ceilingEngine: Engine, lifecycle: Lifecycle, payers: Payer[], poolSize: number) {
  const dir = mkdtempSync(join(tmpdir(), 'payouts-bench-lifecycle-'));
  const file = join(dir, 'lifecycle.json');
  saveLifecycle(file, lifecycle, payers);
  try {
    const server = await spawnServer(
      { ...ceilingEngine.env, BENCH_LIFECYCLE_FILE: file, BENCH_POOL_SIZE: String(poolSize) },
      60_000,
      { command: [process.execPath, '--import', 'tsx', 'bench/raw-sql-server.ts'] },
    );
    const stop = async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    };
    return { server, stop };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** The stateless baseline (bench/stateless-server.ts): the service's HTTP and validation, no work behind. */
export function startStateless(): Promise<ServerProcess> {
  return spawnServer({}, 60_000, { command: [process.execPath, '--import', 'tsx', 'bench/stateless-server.ts'] });
}
