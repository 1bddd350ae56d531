import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createApp, type App, type AppOptions } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { verifyLedger } from '../../src/ledger/verify.ts';
import { openStore, type Store } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { after, before } from './node-test.ts';
import { createPlatform, type CreatedPlatform, type Credentials } from '../../src/services/platforms.ts';

export const API = '/2025-10-13';
export const engine = process.env.TEST_DATABASE_URL ? 'postgres' : 'sqlite';

/** A database of its own for one test file: a fresh PostgreSQL database, or a fresh SQLite folder. */
export interface TestDatabase {
  env: Record<string, string>;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'payouts-test-'));
  const base: Record<string, string> = {
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SECRET_KEY: randomBytes(32).toString('hex'),
  };
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    return { env: base, drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const name = `payouts_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    env: { ...base, DATABASE_URL: url.toString() },
    async drop() {
      const dropper = new pg.Client({ connectionString: serverUrl });
      await dropper.connect();
      await dropper.query(`drop database if exists ${name} with (force)`);
      await dropper.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A migrated store on a test database of its own, for the suite this is called in: opened before its tests,
 * closed and dropped after them. For tests of the store and the job queue that need no server.
 */
export function migratedStore(): () => Store {
  let database: TestDatabase;
  let store: Store;
  before(async () => {
    database = await createTestDatabase();
    store = openStore({ dataDir: database.env.DATA_DIR!, databaseUrl: database.env.DATABASE_URL });
    await migrate(store);
  });
  after(async () => {
    await store.close();
    await database.drop();
  });
  return () => store;
}

export interface Response<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface Client {
  request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Response<T>>;
  get<T = any>(path: string): Promise<Response<T>>;
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<Response<T>>;
  patch<T = any>(path: string, body?: unknown): Promise<Response<T>>;
  delete<T = any>(path: string): Promise<Response<T>>;
}

export function basicAuth(creds: Credentials): string {
  return `Basic ${Buffer.from(`${creds.tokenId}:${creds.clientSecret}`).toString('base64')}`;
}

/** A real HTTP client against the listening server; `auth` may be omitted to test the 401 paths. */
export function client(baseUrl: string, auth?: Credentials | string): Client {
  const authorization = typeof auth === 'string' ? auth : auth ? basicAuth(auth) : undefined;
  async function request<T>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Response<T>> {
    const h: Record<string, string> = { accept: 'application/json', ...headers };
    if (authorization) h.authorization = authorization;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      h['content-type'] ??= 'application/json';
    }
    const unversioned = path.startsWith(API) || ['/healthz', '/readyz', '/metrics'].includes(path);
    const res = await fetch(baseUrl + (unversioned ? path : API + path), { method, headers: h, body: payload ?? null });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // leave it as text
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  }
  return {
    request,
    get: (p) => request('GET', p),
    post: (p, b, h) => request('POST', p, b, h),
    patch: (p, b) => request('PATCH', p, b),
    delete: (p) => request('DELETE', p),
  };
}

export interface TestServer {
  app: App;
  config: Config;
  baseUrl: string;
  /** A new platform with both environments; sandbox and production clients ready to use. */
  platform(name?: string): Promise<TestPlatform>;
  close(): Promise<void>;
}

export interface TestPlatform extends CreatedPlatform {
  sandbox: Credentials;
  production: Credentials;
  api: Client;
  prod: Client;
}

export interface StartOptions extends Pick<AppOptions, 'clock' | 'random'> {
  /**
   * Run on this database instead of a fresh one (a restart, or a second process on PostgreSQL). The
   * caller owns it: close() leaves it in place, and the caller drops it.
   */
  database?: TestDatabase;
}

/**
 * Starts the real app on a real database and a real port. close() checks the ledger's invariants
 * before tearing down, so every test file ends with a ledger verification.
 */
export async function startServer(
  extraEnv: Record<string, string> = {},
  options: StartOptions = {},
): Promise<TestServer> {
  const { database: shared, ...appOptions } = options;
  const database = shared ?? (await createTestDatabase());
  // Contract check mode is on under test: every answer and webhook is held to the OpenAPI document, and
  // close() fails on any mismatch. A test of the mode itself may turn it off with SANDBOX_CONTRACT_CHECK=false.
  const config = loadConfig({ SANDBOX_CONTRACT_CHECK: 'true', ...database.env, ...extraEnv });
  const app = await createApp(config, { validateResponses: true, ...appOptions });
  await app.http.listen({ port: 0, host: '127.0.0.1' });
  const address = app.http.server.address();
  const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    app,
    config,
    baseUrl,
    async platform(name = 'test') {
      const created = await createPlatform(app.services.ctx, name);
      return { ...created, api: client(baseUrl, created.sandbox), prod: client(baseUrl, created.production) };
    },
    async close() {
      try {
        const violations = await verifyLedger(app.store);
        if (violations.length > 0)
          throw new Error(
            `ledger invariants violated:\n${violations.map((v) => `${v.invariant}: ${v.detail}`).join('\n')}`,
          );
        assertNoContractMismatches(app);
      } finally {
        await app.close();
        if (!shared) await database.drop();
      }
    },
  };
}

/**
 * The events a test recorded by hand with made-up data (webhooks/helpers.ts `record`), by id: one server may
 * record an event and another (a restart, a second process) deliver it.
 */
const SYNTHETIC_EVENTS = new Set<string>();

/**
 * Marks an event as a test's own, recorded with data no service would write (`{id: 'x'}`): contract check
 * mode still checks its webhooks, but the teardown does not hold them against the service.
 */
export function syntheticEvent(eventId: string): void {
  SYNTHETIC_EVENTS.add(eventId);
}

/**
 * Contract check mode found nothing: no answer and no webhook of this server differed from its OpenAPI
 * document. The failure names each mismatch (the most recent hundred) and how many there were.
 */
export function assertNoContractMismatches(app: App): void {
  const check = app.services.contractCheck;
  const recent = check.recent();
  const found = recent.filter((m) => m.eventId === undefined || !SYNTHETIC_EVENTS.has(m.eventId));
  // More than the check keeps: some went unlisted, and none can be known to be a test's own.
  const counted = check.count() > recent.length ? check.count() : found.length;
  if (counted === 0) return;
  const listed = found
    .map((m) => `${m.operation} ${m.status ?? '-'}: ${m.message} [${m.rule} at ${m.schemaPath}]`)
    .join('\n');
  throw new Error(`contract check: ${counted} mismatch(es) with the OpenAPI document:\n${listed}`);
}

/**
 * A server for the suite this is called in: started before its tests (before the suite's own `before`
 * hooks, which may use it), closed after them. The handle can be kept in a `const` at once: its fields
 * read the started server, and reading one before it has started fails with a message saying so.
 */
export function useServer(extraEnv: Record<string, string> = {}, options: StartOptions = {}): TestServer {
  let started: TestServer | undefined;
  let closing: Promise<void> | undefined;
  const server = (): TestServer => {
    if (!started) throw new Error('useServer: not started yet (it starts in a before hook); read it in a test or hook');
    return started;
  };
  // A test that closes it early (to see what a stopped server leaves) closes it once, not twice.
  const close = () => (closing ??= server().close());
  before(async () => {
    started = await startServer(extraEnv, options);
  });
  after(async () => {
    if (started) await close();
  });
  return {
    get app() {
      return server().app;
    },
    get config() {
      return server().config;
    },
    get baseUrl() {
      return server().baseUrl;
    },
    platform: (name) => server().platform(name),
    close,
  };
}

/** Whether a PostgreSQL server (or a pooler in front of one) answers a query at `url` now. */
export async function accepting(url: string): Promise<boolean> {
  const probe = new pg.Client({ connectionString: url });
  try {
    await probe.connect();
    await probe.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await probe.end().catch(() => undefined);
  }
}

/** The `kind` jobs whose payload names `key` (a payment's or quote's id, an invitation's code). */
export function jobsFor(server: TestServer, kind: string, key: string): Promise<{ id: string; status: string }[]> {
  return server.app.store.db
    .selectFrom('jobs')
    .select(['id', 'status'])
    .where('kind', '=', kind)
    .where('payload', 'like', `%${key}%`)
    .execute();
}

/** The first of them; undefined if none. */
export async function jobFor(
  server: TestServer,
  kind: string,
  key: string,
): Promise<{ id: string; status: string } | undefined> {
  return (await jobsFor(server, kind, key))[0];
}
