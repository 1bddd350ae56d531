/**
 * Throughput and latency of the money-moving API, on the embedded SQLite database and (when
 * BENCH_DATABASE_URL or TEST_DATABASE_URL names a PostgreSQL server) on PostgreSQL.
 *
 * For each engine it starts `payouts serve` as its own process, then drives it over HTTP with concurrent
 * keep-alive clients and prints: transfer-outs per second at saturation, quote+execute flows per second,
 * p50/p99 latency at saturation and at half of the peak rate (open loop), the server's peak RSS, and the
 * "ceiling": the same transfer-outs done in-process through the services, without HTTP.
 *
 *   npm run bench                       # SQLite, and PostgreSQL when TEST_DATABASE_URL is set
 *   BENCH_SECONDS=10 npm run bench      # longer runs
 *
 * Every loop here is bounded by time and count; it only talks to 127.0.0.1.
 */
import type { ExternalAccountInput } from '../src/domain/account-types.ts';
import { Agent, request } from 'node:http';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { openServices } from '../src/app.ts';
import { createPlatform } from '../src/services/platforms.ts';
import { BUILD } from '../test/external-accounts/fixtures.ts';
import { spawnServer } from '../test/helpers/processes.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const MAX_REQUESTS = 200_000;

interface Target {
  baseUrl: string;
  auth: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function call(t: Target, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const url = new URL(`/2025-10-13${path}`, t.baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        agent,
        headers: {
          authorization: t.auth,
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Result {
  ops: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

/** Closed loop: CONCURRENCY workers each issue the next operation as soon as the last one answered. */
async function saturate(op: () => Promise<boolean>, seconds = SECONDS): Promise<Result> {
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline && latencies.length + errors < MAX_REQUESTS) {
        const t0 = performance.now();
        if (await op()) latencies.push(performance.now() - t0);
        else errors++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    ops: latencies.length,
    perSecond: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
  };
}

/** Open loop at a fixed rate: latency as a client sees it when the server is not saturated. */
async function atRate(op: () => Promise<boolean>, perSecond: number, seconds = SECONDS): Promise<Result> {
  const latencies: number[] = [];
  let errors = 0;
  const total = Math.min(Math.floor(perSecond * seconds), MAX_REQUESTS);
  const started = performance.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    inflight.push(
      (async () => {
        const t0 = performance.now();
        if (await op()) latencies.push(performance.now() - t0);
        else errors++;
      })(),
    );
  }
  await Promise.all(inflight);
  latencies.sort((a, b) => a - b);
  return {
    ops: latencies.length,
    perSecond: latencies.length / ((performance.now() - started) / 1000),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
  };
}

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

const fmt = (r: Result) =>
  `${r.perSecond.toFixed(0).padStart(6)}/s  p50 ${r.p50.toFixed(1).padStart(6)} ms  p99 ` +
  `${r.p99.toFixed(1).padStart(6)} ms  (${r.ops} ok, ${r.errors} failed)`;

async function benchEngine(label: string, env: Record<string, string>): Promise<void> {
  const config = loadConfig(env);
  const { store, services } = await openServices(config);
  const platform = await createPlatform(services.ctx, `bench-${label}`);
  const scope = { platformId: platform.platformId, environment: 'sandbox' as const };
  // One payer per client, so the runs measure the service rather than one hot account row.
  const payers: Array<{ accountId: string; destination: string; eurDestination: string }> = [];
  for (let i = 0; i < CONCURRENCY; i++) {
    const customer = await services.customers.create(scope, {
      customerType: 'INDIVIDUAL',
      platformCustomerId: `bench-${i}`,
    });
    const usd = (
      await services.internalAccounts.listCustomerAccounts(
        scope,
        { customerId: customer.id, currency: 'USD' },
        { limit: 1, order: 'asc' },
      )
    ).data[0]!;
    await services.internalAccounts.fundSandbox(scope, usd.id, 100_000_000_000);
    const destination = await services.externalAccounts.create(scope, {
      ...(BUILD.USD_ACCOUNT('000') as ExternalAccountInput),
      customerId: customer.id,
    });
    const eurDestination = await services.externalAccounts.create(scope, {
      ...(BUILD.EUR_ACCOUNT('000') as ExternalAccountInput),
      customerId: customer.id,
    });
    payers.push({ accountId: usd.id, destination: destination.id, eurDestination: eurDestination.id });
  }
  await store.close();

  const server = await spawnServer({ ...env, JOB_POLL_MS: '50' });
  const target: Target = {
    baseUrl: server.baseUrl,
    auth: `Basic ${Buffer.from(`${platform.sandbox.tokenId}:${platform.sandbox.clientSecret}`).toString('base64')}`,
  };
  let next = 0;
  const transferOut = async () => {
    const payer = payers[next++ % payers.length]!;
    return (
      (
        await call(target, 'POST', '/transfer-out', {
          source: { accountId: payer.accountId },
          destination: { accountId: payer.destination },
          amount: 1,
        })
      ).status === 201
    );
  };
  const quoteAndExecute = async () => {
    const payer = payers[next++ % payers.length]!;
    const quote = await call(target, 'POST', '/quotes', {
      source: { sourceType: 'ACCOUNT', accountId: payer.accountId },
      destination: { destinationType: 'ACCOUNT', accountId: payer.eurDestination },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 1_000,
    });
    if (quote.status !== 201) return false;
    return (await call(target, 'POST', `/quotes/${quote.json.id}/execute`)).status === 200;
  };

  await saturate(transferOut, 1); // warm up: JIT, connection pools, page cache
  const transfers = await saturate(transferOut);
  const half = await atRate(transferOut, Math.max(1, Math.floor(transfers.perSecond / 2)));
  const flows = await saturate(quoteAndExecute);
  const rss = peakRssMb(server.pid);
  await server.stop();

  // The ceiling: the same transfer-outs straight through the services in this process, no HTTP, no auth.
  const direct = await openServices(loadConfig({ ...env, RUN_WORKERS: 'false' }));
  let k = 0;
  const ceiling = await saturate(async () => {
    const payer = payers[k++ % payers.length]!;
    const r = await direct.services.transfers.transferOut(scope, {
      source: { accountId: payer.accountId },
      destination: { accountId: payer.destination },
      amount: 1,
    });
    return r.status === 'PENDING';
  });
  await direct.store.close();

  console.log(`\n${label}  (${CONCURRENCY} concurrent clients, ${SECONDS} s per run)`);
  console.log(`  transfer-out, saturated      ${fmt(transfers)}`);
  console.log(`  transfer-out, at half peak   ${fmt(half)}`);
  console.log(`  quote + execute, saturated   ${fmt(flows)}`);
  console.log(
    `  transfer-out without HTTP    ${fmt(ceiling)}   (HTTP reaches ` +
      `${((100 * transfers.perSecond) / ceiling.perSecond).toFixed(0)} % of it)`,
  );
  console.log(`  server peak RSS              ${rss.toFixed(0)} MB`);
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'payouts-bench-'));
  const secret = randomBytes(32).toString('hex');
  try {
    await benchEngine('SQLite', { DATA_DIR: dataDir, SECRET_KEY: secret, LOG_LEVEL: 'warn' });
    const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
    if (serverUrl) {
      const name = `payouts_bench_${Date.now().toString(36)}`;
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`create database ${name}`);
      const url = new URL(serverUrl);
      url.pathname = `/${name}`;
      try {
        await benchEngine('PostgreSQL', {
          DATA_DIR: join(dataDir, 'pg'),
          SECRET_KEY: secret,
          LOG_LEVEL: 'warn',
          DATABASE_URL: url.toString(),
        });
      } finally {
        await admin.query(`drop database if exists ${name} with (force)`);
        await admin.end();
      }
    } else {
      console.log('\nPostgreSQL: skipped (set TEST_DATABASE_URL or BENCH_DATABASE_URL)');
    }
  } finally {
    agent.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
