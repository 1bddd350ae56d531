/**
 * Through a database outage, with payments flowing: while PostgreSQL is gone every request is answered
 * 503 SERVICE_UNAVAILABLE (never a 500, never a dropped connection) and /readyz says not ready; when it is
 * back the same processes carry on by themselves. Afterwards every accepted payment has settled exactly
 * once, no job is stuck, the balances match what was accepted, the ledger verifies, and retrying a request
 * whose answer was a 503 gives one payment, not two.
 *
 * Two outages: this test's own database refusing connections with every backend killed (the shared
 * PostgreSQL server keeps running for the other tests), and a fast restart of a private PostgreSQL server.
 */
import { after, before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { accepting, client, createTestDatabase, engine, type Client, type TestPlatform } from '../helpers/harness.ts';
import {
  freePort,
  runCliOk,
  runCommand,
  spawnDaemon,
  spawnServer,
  type Daemon,
  type ServerProcess,
} from '../helpers/processes.ts';
import { waitFor } from '../helpers/wait.ts';
import { balance, externalAccount, fundedCustomer } from '../money/fixtures.ts';

const PG_BIN = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'].find((dir) =>
  existsSync(join(dir, 'initdb')),
);
const notPostgres =
  engine !== 'postgres' ? 'PostgreSQL only (set TEST_DATABASE_URL): SQLite has no server to lose' : false;

/** What a test does to take the database away and give it back. */
interface Outage {
  begin(): Promise<void>;
  end(): Promise<void>;
}

/** Every answer one sender got, and whether the database was gone when the request left. */
interface Answer {
  key: string;
  server: number;
  status: number;
  body: any;
  retryAfter: string | null;
  during: 'before' | 'outage' | 'after';
}

const AMOUNT = 100;
const FUNDED = 10_000_000;
const SENDERS = 4;

/** Senders that keep paying out, each request with an Idempotency-Key, until stopped. */
class Traffic {
  readonly answers: Answer[] = [];
  during: Answer['during'] = 'before';
  private stopped = false;
  private readonly loops: Promise<void>[] = [];

  constructor(
    private readonly apis: Client[],
    readonly body: unknown,
  ) {
    for (let i = 0; i < SENDERS; i++) this.loops.push(this.send(i));
  }

  private async send(sender: number): Promise<void> {
    for (let n = 0; !this.stopped; n++) {
      const key = `outage-${sender}-${n}`;
      const server = (sender + n) % this.apis.length;
      const during = this.during;
      const res = await this.apis[server]!.post('/transfer-out', this.body, { 'idempotency-key': key }).catch(
        (err: Error) => ({
          status: 0,
          body: `no answer: ${err.message} ${err.cause instanceof Error ? err.cause.message : ''}`,
          headers: undefined,
        }),
      );
      this.answers.push({
        key,
        server,
        status: res.status,
        body: res.body,
        retryAfter: res.headers?.get('retry-after') ?? null,
        during,
      });
    }
  }

  count(during: Answer['during'], status: number): number {
    return this.answers.filter((a) => a.during === during && a.status === status).length;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }
}

async function readiness(server: ServerProcess): Promise<number> {
  const res = await fetch(`${server.baseUrl}/readyz`).catch((err: Error) => {
    throw new Error(`the process on port ${server.port} does not answer (${err.message}):\n${server.output()}`);
  });
  return res.status;
}

/** The answer a client gets while the database is gone: 503 in the API's error shape, with a Retry-After. */
function assertUnavailable(answer: { status: number; body: any; retryAfter: string | null }, what: string): void {
  assert.equal(answer.status, 503, `${what} answered 503, not ${answer.status}: ${JSON.stringify(answer.body)}`);
  assert.equal(answer.body?.code, 'SERVICE_UNAVAILABLE', `${what} carries the contract's 503 code`);
  assert.equal(answer.body?.status, 503, `${what} is in the error shape`);
  assert.match(String(answer.retryAfter), /^\d+$/, `${what} says when to retry`);
}

interface Setup {
  env: Record<string, string>;
  servers: ServerProcess[];
  databaseUrl: string;
}

/** A platform made by the CLI, as an operator makes one, with clients on every server process. */
async function platformOn(setup: Setup): Promise<TestPlatform> {
  const cli = { ...process.env, ...setup.env };
  const created = JSON.parse((await runCliOk(['platforms', 'create', '--name', 'outage', '--json'], cli)).stdout);
  const [first] = setup.servers;
  return { ...created, api: client(first!.baseUrl, created.sandbox), prod: client(first!.baseUrl, created.production) };
}

/** Runs one statement on `databaseUrl` and answers its rows. */
async function query(databaseUrl: string, statement: string, values: unknown[] = []): Promise<any[]> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    return (await db.query(statement, values)).rows;
  } finally {
    await db.end();
  }
}

/**
 * Waits until no job is held by a worker or overdue (the last payments' event deliveries may still be
 * running), then checks that none was given up on: an outage must not count as a job's failure.
 */
async function noJobLeft(databaseUrl: string): Promise<void> {
  const count = async (where: string) =>
    (await query(databaseUrl, `select count(*)::int as n from jobs where ${where}`))[0].n as number;
  const now = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;
  await waitFor(
    async () => (await count(`status = 'running' or (status = 'pending' and run_at <= ${now})`)) === 0,
    'no job to be running or overdue',
    90_000,
    200,
  );
  assert.equal(await count(`status = 'failed'`), 0, 'no job failed for good');
}

/** What the outage is tried on: a payer paying out to a bank account, and a quote ready to execute. */
interface Payments {
  p: TestPlatform;
  apis: Client[];
  payer: { customerId: string; accountId: string };
  bank: string;
  quoter: { customerId: string; accountId: string };
  quoteId: string;
}

async function payments(setup: Setup): Promise<Payments> {
  const p = await platformOn(setup);
  const payer = await fundedCustomer(p, 'USD', FUNDED);
  const bank = await externalAccount(p, payer.customerId, 'USD_ACCOUNT', '000');
  const quoter = await fundedCustomer(p, 'USD', 50_000);
  const quote = await p.api.post('/quotes', {
    source: { sourceType: 'ACCOUNT', accountId: quoter.accountId },
    destination: {
      destinationType: 'ACCOUNT',
      accountId: await externalAccount(p, quoter.customerId, 'EUR_ACCOUNT', '000'),
    },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 10_000,
  });
  assert.equal(quote.status, 201, JSON.stringify(quote.body));
  const apis = setup.servers.map((s) => client(s.baseUrl, p.sandbox));
  return { p, apis, payer, bank, quoter, quoteId: quote.body.id };
}

const everyProcess = async (setup: Setup, status: number) =>
  (await Promise.all(setup.servers.map(readiness))).every((answered) => answered === status);

/** Takes the database away while the senders pay, holds it until everyone has met it, and gives it back. */
async function outageUnderTraffic(setup: Setup, outage: Outage, traffic: Traffic, on: Payments): Promise<void> {
  await waitFor(() => traffic.count('before', 201) >= 20, 'payments to flow before the outage');
  await outage.begin();
  traffic.during = 'outage';
  await waitFor(() => everyProcess(setup, 503), 'every process to report not ready');
  const refused = await on.apis[1]!.post(`/quotes/${on.quoteId}/execute`, undefined, executeKey(on));
  assertUnavailable({ ...refused, retryAfter: refused.headers.get('retry-after') }, 'a quote execution meanwhile');
  // Held until the senders have met the outage many times and each job worker has noticed it.
  await waitFor(
    () => traffic.count('outage', 503) >= 100 && setup.servers.every((s) => s.output().includes(WORKER_LOST)),
    'the senders and both job workers to meet the outage',
  );
  await outage.end();
  traffic.during = 'after';
  await waitFor(() => everyProcess(setup, 200), 'every process to report ready again by itself');
  await waitFor(() => traffic.count('after', 201) >= 20, 'payments to flow again after the outage');
}

/** The job worker's one line about an outage. */
const WORKER_LOST = 'job worker lost the database';
const executeKey = (on: Payments) => ({ 'idempotency-key': `execute-${on.quoteId}` });

/**
 * Every request answered 503 is retried with its key: exactly one payment each, whether or not the first
 * attempt had committed before its answer was lost. Answers the payment of each key.
 */
async function retried(traffic: Traffic, apis: Client[]): Promise<Map<string, string>> {
  const strays = traffic.answers.filter((a) => a.status !== 201 && a.status !== 503);
  assert.deepEqual(strays.slice(0, 5), [], `every answer is 201 or 503 (${strays.length} others)`);
  for (const refused of traffic.answers.filter((a) => a.status === 503))
    assertUnavailable(refused, `transfer-out ${refused.key}`);
  assert.ok(traffic.count('outage', 503) > 0, 'the outage was met');
  const paid = await Promise.all(
    traffic.answers.map(async (a) => {
      const answer = a.status === 503 ? await apis[a.server]!.post('/transfer-out', traffic.body, keyed(a.key)) : a;
      assert.equal(answer.status, 201, `${a.key} is accepted on retry: ${JSON.stringify(answer.body)}`);
      return [a.key, answer.body.id as string] as const;
    }),
  );
  // A retry of an accepted request replays its original answer.
  const first = traffic.answers.find((a) => a.status === 201)!;
  const again = await apis[0]!.post('/transfer-out', traffic.body, keyed(first.key));
  assert.equal(again.body.id, first.body.id, 'the retry of an accepted payment gives the original payment');
  assert.equal(again.headers.get('idempotent-replayed'), 'true', 'and says it is a replay');
  return new Map(paid);
}

const keyed = (key: string) => ({ 'idempotency-key': key });

async function throughOutage(setup: Setup, outage: Outage): Promise<void> {
  const on = await payments(setup);
  const traffic = new Traffic(on.apis, {
    source: { accountId: on.payer.accountId },
    destination: { accountId: on.bank },
    amount: AMOUNT,
  });
  try {
    await outageUnderTraffic(setup, outage, traffic, on);
  } finally {
    // Also when the outage goes wrong: senders left running would keep this file from ending.
    await traffic.stop();
  }
  const accepted = await retried(traffic, on.apis);
  const executed = await on.apis[0]!.post(`/quotes/${on.quoteId}/execute`, undefined, executeKey(on));
  assert.equal(executed.status, 200, `the quote executes once the database is back: ${JSON.stringify(executed.body)}`);

  const paid = new Set(accepted.values()).size;
  assert.equal(paid, accepted.size, 'one payment per key');
  await settled(on.p, on.payer.customerId, paid);
  await settled(on.p, on.quoter.customerId, 1);
  assert.equal(await balance(on.p, on.payer.customerId), FUNDED - paid * AMOUNT, 'each payment debited once');
  assert.equal(await balance(on.p, on.quoter.customerId), 40_000, 'the quote debited once');
  await noJobLeft(setup.databaseUrl);
  const verify = await runCliOk(['ledger', 'verify'], { ...process.env, ...setup.env });
  assert.match(verify.stdout, /ledger ok/, 'the ledger verifies');
  for (const server of setup.servers) {
    assert.ok((await fetch(`${server.baseUrl}/healthz`)).ok, 'the same process still serves');
    const reported = server.output().split(WORKER_LOST).length - 1;
    assert.equal(reported, 1, `the job worker reports the outage once, not per poll:\n${server.output()}`);
    assert.doesNotMatch(server.output(), /"statusCode":500|INTERNAL_ERROR/, 'no 500 in the log');
  }
}

/** Waits until the customer has `count` payments and every one of them is COMPLETED. */
async function settled(p: TestPlatform, customerId: string, count: number): Promise<void> {
  const total = (status = '') =>
    p.api
      .get(`/transactions?customerId=${encodeURIComponent(customerId)}${status}&limit=1`)
      .then((r) => r.body.totalCount);
  // A job claimed just before the database went away runs again when it is back (at worst when its lease
  // runs out: 20 s for a rail step, 60 s for a delivery).
  await waitFor(async () => (await total('&status=COMPLETED')) === count, `${count} payments to complete`, 90_000, 200);
  assert.equal(await total(), count, `the customer has exactly ${count} payments, none unaccounted for`);
}

async function serving(env: Record<string, string>): Promise<ServerProcess[]> {
  await runCliOk(['migrate'], { ...process.env, ...env });
  const serverEnv = { ...env, JOB_POLL_MS: '50', LOG_LEVEL: 'warn' };
  return Promise.all([spawnServer(serverEnv), spawnServer(serverEnv)]);
}

describe("through an outage of the test's own database", { skip: notPostgres }, () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let setup: Setup;
  // On the shared server's own database, never on the one taken away.
  const admin = (statement: string, values: unknown[] = []) => query(process.env.TEST_DATABASE_URL!, statement, values);
  let name: string;

  before(async () => {
    database = await createTestDatabase();
    name = new URL(database.env.DATABASE_URL!).pathname.slice(1);
    setup = { env: database.env, servers: await serving(database.env), databaseUrl: database.env.DATABASE_URL! };
  });
  after(async () => {
    if (name) await admin(`alter database ${name} with allow_connections true`);
    await Promise.all(setup?.servers.map((s) => s.stop()) ?? []);
    await database?.drop();
  });

  it('answers 503 while its database refuses connections, and recovers by itself losing nothing', async () => {
    await throughOutage(setup, {
      async begin() {
        // The shared server stays up: only this database refuses new connections, and loses its open ones.
        await admin(`alter database ${name} with allow_connections false`);
        await admin('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [name]);
      },
      async end() {
        await admin(`alter database ${name} with allow_connections true`);
      },
    });
  });
});

describe('through a restart of its PostgreSQL server', {
  skip: notPostgres || (PG_BIN ? false : 'PostgreSQL server binaries are not installed (postgresql-15)'),
}, () => {
  let folder: string;
  let port: number;
  let postgres: Daemon | undefined;
  let setup: Setup;
  const dataDir = () => join(folder, 'data');
  // PostgreSQL refuses to run as root: every server command runs as the postgres user.
  const asOwner = (file: string, args: string[]) =>
    userInfo().uid === 0
      ? (['setpriv', ['--reuid=postgres', '--regid=postgres', '--clear-groups', file, ...args]] as const)
      : ([file, args] as const);
  const pgCtl = async (...args: string[]) => {
    const [file, argv] = asOwner(join(PG_BIN!, 'pg_ctl'), ['-D', dataDir(), ...args]);
    const result = await runCommand(file, [...argv], { env: process.env });
    assert.equal(result.code, 0, `pg_ctl ${args.join(' ')}: ${result.stdout}${result.stderr}`);
  };
  const start = async () => {
    const [file, argv] = asOwner(join(PG_BIN!, 'postgres'), [
      '-D',
      dataDir(),
      '-p',
      String(port),
      '-k',
      folder,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
    ]);
    postgres = await spawnDaemon(
      file,
      [...argv],
      () => accepting(`postgres://postgres@127.0.0.1:${port}/postgres`),
      `a private PostgreSQL on port ${port}`,
    );
  };

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'payouts-pg-'));
    chmodSync(folder, 0o755);
    if (userInfo().uid === 0) await runCommand('chown', ['postgres:postgres', folder], { env: process.env });
    port = await freePort();
    const [file, argv] = asOwner(join(PG_BIN!, 'initdb'), [
      '-D',
      dataDir(),
      '-U',
      'postgres',
      '-A',
      'trust',
      '--no-sync',
    ]);
    const init = await runCommand(file, [...argv], { env: process.env });
    assert.equal(init.code, 0, `initdb: ${init.stdout}${init.stderr}`);
    await start();
    const env = {
      DATA_DIR: join(folder, 'service'),
      SECRET_KEY: randomBytes(32).toString('hex'),
      DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres`,
    };
    setup = { env, servers: await serving(env), databaseUrl: env.DATABASE_URL };
  });
  after(async () => {
    await Promise.all(setup?.servers.map((s) => s.stop()) ?? []);
    if (postgres) await pgCtl('stop', '-m', 'immediate').catch(() => undefined);
    await postgres?.stop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('answers 503 while its server restarts, and recovers by itself losing nothing', async () => {
    await throughOutage(setup, {
      async begin() {
        // A fast shutdown: open connections are closed and new ones refused until the server is back.
        await pgCtl('stop', '-m', 'fast');
        await postgres?.stop();
      },
      end: start,
    });
  });
});
