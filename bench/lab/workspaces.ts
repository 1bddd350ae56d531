/**
 * How long a sandbox workspace takes to make and to reset, as ratios to a plain `GET /customers` measured
 * in the same run against the same server (absolute times depend on the machine; ratios travel).
 *
 *   npm run bench:lab:workspaces            # the embedded database
 *   BENCH_ROUNDS=200 npm run bench:lab:workspaces
 *
 * Starts `payouts serve` as its own process on 127.0.0.1 (workspaces open there), one request at a time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer } from '../../test/helpers/processes.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 50);
const API = '/2025-10-13';

interface Workspace {
  tokenId: string;
  clientSecret: string;
}

const basic = (w: Workspace) => `Basic ${Buffer.from(`${w.tokenId}:${w.clientSecret}`).toString('base64')}`;

async function call(baseUrl: string, method: string, path: string, auth?: string, body?: unknown) {
  const res = await fetch(`${baseUrl}${API}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

/** Median milliseconds of `rounds` runs of `step` (each awaited alone), after one warm-up run. */
async function median(rounds: number, step: (i: number) => Promise<unknown>): Promise<number> {
  await step(-1);
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    await step(i);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? 0;
}

const dataDir = mkdtempSync(join(tmpdir(), 'payouts-bench-ws-'));
const server = await spawnServer({
  DATA_DIR: dataDir,
  DATABASE_URL: '',
  LOG_LEVEL: 'warn',
  SANDBOX_WORKSPACES: 'open',
});
try {
  const { baseUrl } = server;
  const ws = (await call(baseUrl, 'POST', '/sandbox/workspaces', undefined, {})) as unknown as Workspace;
  const auth = basic(ws);
  const baseline = await median(ROUNDS, () => call(baseUrl, 'GET', '/customers', auth));
  const create = await median(ROUNDS, () => call(baseUrl, 'POST', '/sandbox/workspaces', undefined, {}));
  // A reset with something to delete: ten customers (each with its internal accounts) made before each one.
  const resetTimes: number[] = [];
  for (let round = 0; round < Math.min(ROUNDS, 20); round++) {
    for (let i = 0; i < 10; i++) {
      await call(baseUrl, 'POST', '/customers', auth, {
        customerType: 'INDIVIDUAL',
        platformCustomerId: `c-${round}-${i}`,
      });
    }
    const started = performance.now();
    await call(baseUrl, 'POST', '/sandbox/reset', auth);
    resetTimes.push(performance.now() - started);
  }
  resetTimes.sort((a, b) => a - b);
  const reset = resetTimes[Math.floor(resetTimes.length / 2)] ?? 0;
  const resetEmpty = await median(ROUNDS, () => call(baseUrl, 'POST', '/sandbox/reset', auth));
  const row = (what: string, ms: number) =>
    `${what.padEnd(44)} ${(ms / baseline).toFixed(1).padStart(6)} x GET /customers`;
  process.stdout.write(
    [
      `median of ${ROUNDS} rounds, SQLite, one request at a time (GET /customers = 1.0 x)`,
      row('POST /sandbox/workspaces', create),
      row('POST /sandbox/reset (10 customers to delete)', reset),
      row('POST /sandbox/reset (already empty)', resetEmpty),
      '',
    ].join('\n'),
  );
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
