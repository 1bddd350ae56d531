/**
 * Behind PgBouncer in transaction mode, the pooler most PostgreSQL deployments put in front of the
 * database: a server connection is shared between clients from one transaction to the next, so nothing
 * may live on a connection beyond a transaction. With DATABASE_PREPARED_STATEMENTS=false the service keeps
 * nothing there. Runs on PostgreSQL when the pgbouncer binary is present (CI installs it).
 */
import { after, before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { openStore } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { vacuumJobs } from '../../src/jobs/queue.ts';
import { accepting, client, createTestDatabase, engine, type TestDatabase } from '../helpers/harness.ts';
import {
  freePort,
  runCli,
  runCliOk,
  spawnDaemon,
  spawnServer,
  type Daemon,
  type ServerProcess,
} from '../helpers/processes.ts';

const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((path) => existsSync(path));
const skip =
  engine !== 'postgres'
    ? 'PostgreSQL only (set TEST_DATABASE_URL)'
    : PGBOUNCER
      ? false
      : 'pgbouncer is not installed (apt-get install pgbouncer)';

describe('behind PgBouncer in transaction mode', { skip }, () => {
  let database: TestDatabase;
  let bouncer: Daemon;
  let server: ServerProcess;
  let folder: string;
  let env: Record<string, string>;

  before(async () => {
    database = await createTestDatabase();
    const direct = new URL(database.env.DATABASE_URL!);
    folder = mkdtempSync(join(tmpdir(), 'pgbouncer-'));
    chmodSync(folder, 0o755);
    const port = await freePort();
    writeFileSync(join(folder, 'users.txt'), `"${direct.username || 'postgres'}" ""\n`);
    writeFileSync(
      join(folder, 'pgbouncer.ini'),
      [
        '[databases]',
        `* = host=${direct.hostname} port=${direct.port || 5432}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${join(folder, 'users.txt')}`,
        'pool_mode = transaction',
        // Fewer server connections than the service's pool: they must be shared between its clients.
        'default_pool_size = 3',
        'max_client_conn = 100',
        'ignore_startup_parameters = extra_float_digits,options',
      ].join('\n'),
    );
    // PgBouncer refuses to run as root; -u drops to the database's own user.
    const asUser = process.getuid?.() === 0 ? ['-u', 'postgres'] : [];
    const pooled = new URL(direct);
    pooled.port = String(port);
    bouncer = await spawnDaemon(
      PGBOUNCER!,
      [...asUser, join(folder, 'pgbouncer.ini')],
      () => accepting(pooled.toString()),
      `pgbouncer on port ${port}`,
    );
    env = { ...database.env, DATABASE_URL: pooled.toString(), DATABASE_PREPARED_STATEMENTS: 'false' };
    await runCliOk(['migrate'], { ...process.env, ...env });
    server = await spawnServer({ ...env, DATABASE_POOL_SIZE: '10' });
  });
  /** Rows of `text` on the database itself, past the pooler. */
  async function pastThePooler(text: string): Promise<Record<string, unknown>[]> {
    const connection = new pg.Client({ connectionString: database.env.DATABASE_URL });
    await connection.connect();
    try {
      return (await connection.query(text)).rows;
    } finally {
      await connection.end();
    }
  }

  after(async () => {
    await server?.stop();
    await bouncer?.stop();
    await database?.drop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('moves money under concurrency with no 5xx, and the ledger holds', async () => {
    const created = JSON.parse(
      (await runCliOk(['platforms', 'create', '--name', 'pooled', '--json'], { ...process.env, ...env })).stdout,
    );
    const api = client(server.baseUrl, created.sandbox);
    const customer = (await api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'pool-1' })).body;
    const usd = (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`)).body
      .data[0].id;
    assert.equal((await api.post(`/sandbox/internal-accounts/${usd}/fund`, { amount: 1_000_000 })).status, 200);
    const bank = await api.post('/customers/external-accounts', {
      customerId: customer.id,
      currency: 'USD',
      accountInfo: {
        accountType: 'USD_ACCOUNT',
        accountNumber: '000123456000',
        routingNumber: '021000021',
        beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Pooled User' },
      },
    });
    assert.equal(bank.status, 201, JSON.stringify(bank.body));
    const body = { source: { accountId: usd }, destination: { accountId: bank.body.id }, amount: 1_000 };
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        api.post('/transfer-out', body, i % 2 === 0 ? { 'idempotency-key': `pool-${i}` } : {}),
      ),
    );
    const statuses = answers.map((a) => a.status);
    assert.deepEqual([...new Set(statuses)], [201], `every transfer-out answered 201 (got ${statuses.join(',')})`);
    const balance = (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`)).body
      .data[0].balance.amount;
    assert.equal(balance, 1_000_000 - 200 * 1_000, 'debited exactly once each');
    const verify = await runCliOk(['ledger', 'verify'], { ...process.env, ...env });
    assert.match(verify.stdout, /ledger ok/);
    assert.doesNotMatch(server.output(), /prepared statement|"level":50/, 'no database error in the server log');
  });

  it('refuses prepared statements through it at start, in one line naming the setting', async () => {
    // The server above holds sessions of the pooler's, so a second process shares them, as in production;
    // without the setting it used to start, then die at its first collision with a stack trace. Exit code 2,
    // as for any other setting that cannot work.
    const prepared = { ...process.env, ...env, DATABASE_PREPARED_STATEMENTS: 'true' };
    for (const args of [['serve'], ['migrate'], ['ledger', 'verify']]) {
      const run = await runCli(args, { ...prepared, PORT: '0' });
      assert.equal(run.code, 2, `payouts ${args.join(' ')} stops: ${run.stderr}`);
      // Besides the line that says which database a command opens, one line: the problem, no stack.
      const lines = run.stderr
        .trim()
        .split('\n')
        .filter((line) => !line.startsWith('payouts: database: '));
      assert.equal(lines.length, 1, `one line on stderr: ${run.stderr}`);
      assert.match(lines[0]!, /^payouts: .*pooler.*DATABASE_PREPARED_STATEMENTS=false/, 'the line names the setting');
    }
    // Past the pooler, prepared statements are fine: the check sees one session per connection.
    const direct = await runCli(['ledger', 'verify'], { ...prepared, DATABASE_URL: database.env.DATABASE_URL });
    assert.equal(direct.code, 0, direct.stderr);
  });

  it('lets processes start side by side through it, migrating, and leaves no lock on a pooled connection', async () => {
    // Every process migrates as it starts. A lock taken by one statement and released by another (as
    // Kysely's migrator does) can be taken on one server connection and released on another here; it then
    // stays on the pooled connection, and the next start waits for it (for an hour).
    const stores = Array.from({ length: 4 }, () =>
      openStore({ dataDir: folder, databaseUrl: env.DATABASE_URL, poolSize: 2, preparedStatements: false }),
    );
    try {
      for (let round = 0; round < 5; round++) {
        const starts = Promise.all(stores.map((store) => migrate(store)));
        const waited = await Promise.race([starts.then(() => 'done'), sleep(20_000).then(() => 'still waiting')]);
        assert.equal(waited, 'done', `round ${round + 1}: four starts migrated within 20 s`);
      }
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
    const [locks] = await pastThePooler(
      "select count(*)::int as n from pg_locks where locktype = 'advisory' and database = " +
        '(select oid from pg_database where datname = current_database())',
    );
    assert.equal(locks?.n, 0, 'no advisory lock is left on a server connection');
  });

  it("vacuums the job table through it, two processes at once (the worker's upkeep, jobs/queue.ts)", async () => {
    // VACUUM may not run inside a transaction block; through the pooler each statement is its own.
    const stores = Array.from({ length: 2 }, () =>
      openStore({ dataDir: folder, databaseUrl: env.DATABASE_URL, poolSize: 1, preparedStatements: false }),
    );
    try {
      for (let round = 0; round < 3; round++) await Promise.all(stores.map((store) => vacuumJobs(store)));
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
    const [jobs] = await pastThePooler("select vacuum_count from pg_stat_user_tables where relname = 'jobs'");
    assert.ok(Number(jobs?.vacuum_count) >= 3, `the vacuums ran (${jobs?.vacuum_count} counted)`);
  });
});
