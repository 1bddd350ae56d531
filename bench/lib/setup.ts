/**
 * What every bench needs before load: an engine (a fresh SQLite folder or a PostgreSQL database of its
 * own), a platform, and payers made through the services exactly as the API makes them.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { SpawnOptions } from '../../test/helpers/processes.ts';
import type { ExternalAccountInput } from '../../src/domain/account-types.ts';
import { openServices } from '../../src/open-services.ts';
import { loadConfig } from '../../src/config.ts';
import type { Scope } from '../../src/context.ts';
import { loadScope } from '../../src/platforms.ts';
import { createPlatform, type Credentials } from '../../src/services/platforms.ts';
import type { Services } from '../../src/services/index.ts';
import type { Store } from '../../src/store/db.ts';
import { BUILD } from '../../test/external-accounts/fixtures.ts';

export interface Engine {
  label: 'SQLite' | 'PostgreSQL';
  env: Record<string, string>;
  drop(): Promise<void>;
}

const SECRET = randomBytes(32).toString('hex');

/** The PostgreSQL server the benches may use, if any. */
export function serverUrl(): string | undefined {
  return process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
}

/** A fresh, empty database on the engine: a SQLite folder, or a PostgreSQL database dropped afterwards. */
export async function freshEngine(label: Engine['label'], tag: string): Promise<Engine> {
  const dataDir = mkdtempSync(join(tmpdir(), `payouts-bench-${tag}-`));
  const base = { DATA_DIR: dataDir, SECRET_KEY: SECRET, LOG_LEVEL: 'warn' };
  const url = serverUrl();
  if (label === 'SQLite' || !url) {
    return { label, env: base, drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const name = `payouts_bench_${tag}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const dbUrl = new URL(url);
  dbUrl.pathname = `/${name}`;
  return {
    label,
    env: { ...base, DATABASE_URL: dbUrl.toString() },
    drop: async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The engines of this run: SQLite, and PostgreSQL when a server is named; BENCH_ENGINES=postgresql picks one
 * (any case). A name that is not an engine stops the run, rather than measuring nothing.
 */
export function engineLabels(): Engine['label'][] {
  const all: Engine['label'][] = serverUrl() ? ['SQLite', 'PostgreSQL'] : ['SQLite'];
  const only = process.env.BENCH_ENGINES?.split(',').map((e) => e.trim().toLowerCase());
  if (!only) return all;
  const unknown = only.filter((name) => name !== 'sqlite' && name !== 'postgresql');
  if (unknown.length > 0) throw new Error(`BENCH_ENGINES: ${unknown.join(', ')} is not an engine (sqlite, postgresql)`);
  if (only.includes('postgresql') && !serverUrl())
    throw new Error('BENCH_ENGINES names postgresql: set TEST_DATABASE_URL or BENCH_DATABASE_URL to its server');
  return all.filter((e) => only.includes(e.toLowerCase()));
}

/**
 * How the benches start `payouts serve`: from the build, as an installation runs it, or with
 * BENCH_SERVER=sources the TypeScript through tsx (the same code, plus tsx's loader).
 */
export const BENCH_SERVER: { options: SpawnOptions; label: string } =
  process.env.BENCH_SERVER === 'sources'
    ? { options: {}, label: 'the sources through tsx' }
    : {
        options: { command: [process.execPath, 'bin/payouts.mjs', 'serve'] },
        label: 'payouts serve from the build (dist/), plain Node',
      };

export async function open(engine: Engine, extra: Record<string, string> = {}) {
  return openServices(loadConfig({ ...engine.env, RUN_WORKERS: 'false', ...extra }));
}

export interface Payer {
  customerId: string;
  platformCustomerId: string;
  accountId: string;
  destination: string;
}

export interface BenchPlatform {
  scope: Scope;
  auth: string;
  /** The same token, for what signs in with it (the dashboard). */
  credentials: Credentials;
  payers: Payer[];
}

/**
 * A platform with `count` customers, each with a funded USD account and a US bank account whose number
 * ends in 000 (the sandbox settles it at once): one payer per client, so the load measures the service
 * rather than one hot account row.
 */
export async function makePlatform(
  services: Services,
  name: string,
  count: number,
  webhookEndpoint?: string,
): Promise<BenchPlatform> {
  const platform = await createPlatform(services.ctx, name);
  const bare: Scope = { platformId: platform.platformId, environment: 'sandbox' };
  if (webhookEndpoint) await services.platformConfig.update(bare, { webhookEndpoint });
  // The scope as a request carries it (whether the platform has an endpoint decides which rows an event writes).
  const scope = await loadScope(services.ctx, platform.platformId, 'sandbox');
  const payers: Payer[] = [];
  for (let i = 0; i < count; i++) {
    const platformCustomerId = `${name}-${i}`;
    const customer = await services.customers.create(scope, { customerType: 'INDIVIDUAL', platformCustomerId });
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
    payers.push({ customerId: customer.id, platformCustomerId, accountId: usd.id, destination: destination.id });
  }
  const { tokenId, clientSecret } = platform.sandbox;
  const auth = `Basic ${Buffer.from(`${tokenId}:${clientSecret}`).toString('base64')}`;
  return { scope, auth, credentials: platform.sandbox, payers };
}

export function transferBody(payer: Payer) {
  return { source: { accountId: payer.accountId }, destination: { accountId: payer.destination }, amount: 1 };
}

/** Payments of the platform not yet COMPLETED or FAILED. */
export async function unsettled(store: Store, scope: Scope): Promise<number> {
  const row = await store.db
    .selectFrom('transactions')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('platform_id', '=', scope.platformId)
    .where('environment', '=', scope.environment)
    .where('status', 'in', ['PENDING', 'PROCESSING'])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function machine(): string {
  const cpu = cpus();
  return `${cpu.length} cores (${cpu[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ${process.platform}`;
}
