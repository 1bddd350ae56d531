import { after, before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, startServer, type TestServer } from '../helpers/harness.ts';
import { runCli, runCliOk, spawnServer } from '../helpers/processes.ts';
import { waitFor } from '../helpers/wait.ts';

describe('command line', () => {
  let server: TestServer;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    server = await startServer();
    // The CLI reads the same DATA_DIR / DATABASE_URL / SECRET_KEY as the running server.
    env = {
      ...process.env,
      DATA_DIR: server.config.dataDir,
      DATABASE_URL: server.config.databaseUrl ?? '',
      SECRET_KEY: server.config.secretKey.toString('hex'),
      LOG_LEVEL: 'silent',
    };
  });
  after(() => server.close());

  const payouts = (...args: string[]) => runCliOk(args, env);

  it('creates a platform while the server runs, printing exactly one JSON object', async () => {
    const { stdout } = await payouts('platforms', 'create', '--name', 'cli-made', '--json');
    const lines = stdout.trim().split('\n');
    assert.equal(lines.length, 1);
    const created = JSON.parse(lines[0]!);
    assert.deepEqual(Object.keys(created).sort(), ['platformId', 'production', 'sandbox']);
    assert.deepEqual(Object.keys(created.sandbox).sort(), ['clientSecret', 'tokenId']);
    const api = client(server.baseUrl, created.sandbox);
    assert.equal((await api.get('/platform/internal-accounts')).status, 200);
    const prod = client(server.baseUrl, created.production);
    assert.equal((await prod.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'p' })).status, 201);

    const token = await payouts(
      'tokens',
      'create',
      '--platform',
      created.platformId,
      '--env',
      'sandbox',
      '--name',
      'reader',
      '--permissions',
      'VIEW',
      '--json',
    );
    const reader = JSON.parse(token.stdout);
    assert.deepEqual(reader.permissions, ['VIEW']);
    const readerApi = client(server.baseUrl, { tokenId: reader.id, clientSecret: reader.clientSecret });
    assert.equal((await readerApi.get('/customers')).status, 200);
    assert.equal(
      (await readerApi.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'q' })).status,
      403,
    );
  });

  it('refuses bad arguments with exit code 2', async () => {
    const badEnv = await runCli(
      ['tokens', 'create', '--platform', 'Platform:nope', '--env', 'staging', '--name', 'x'],
      env,
    );
    assert.equal(badEnv.code, 2, badEnv.stderr);
    assert.match(badEnv.stderr, /--env/);
    assert.equal((await runCli(['frobnicate'], env)).code, 2);
  });

  it('--help on any command prints its usage and does nothing else; --version; unknown options exit 2', async () => {
    const fresh = join(mkdtempSync(join(tmpdir(), 'payouts-help-')), 'data');
    const untouched = { ...env, DATA_DIR: fresh, DATABASE_URL: '' };
    for (const args of [
      ['serve', '--help'],
      ['migrate', '-h'],
      ['transactions', 'settle', '--help'],
    ]) {
      const help = await runCli(args, untouched);
      assert.equal(help.code, 0, help.stderr);
      assert.match(help.stdout, new RegExp(`^Usage: payouts ${args[0]}`), `usage of ${args[0]}`);
    }
    assert.equal(existsSync(fresh), false, 'no data folder was created: nothing ran');
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    assert.equal((await runCli(['--version'], untouched)).stdout, `payouts ${version}\n`);
    const unknown = await runCli(['tokens', 'create', '--bogus'], env);
    assert.equal(unknown.code, 2, unknown.stderr);
    assert.match(unknown.stderr, /Unknown option '--bogus'[\s\S]*Usage: payouts tokens create/);
  });

  it('migrates idempotently and verifies the ledger', async () => {
    const migrated = await payouts('migrate');
    assert.match(migrated.stdout, /up to date/);
    const verified = await payouts('ledger', 'verify');
    assert.match(verified.stdout, /ledger ok/);
  });
});

describe('first start', () => {
  it('creates the default platform on an empty database and prints its sandbox credentials once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'payouts-first-'));
    const env = { DATA_DIR: dataDir, DATABASE_URL: '' };
    try {
      const first = await spawnServer(env);
      try {
        // The credentials are written before the port is bound, so they are in stdout once /readyz answers;
        // the pipe may still be delivering them, hence the bounded wait.
        await waitFor(
          () => /clientSecret:\s+\S+/.test(first.stdout()),
          'the first start to print the sandbox credentials',
        );
        const tokenId = /tokenId:\s+(\S+)/.exec(first.stdout())?.[1];
        const clientSecret = /clientSecret:\s+(\S+)/.exec(first.stdout())?.[1];
        assert.ok(tokenId && clientSecret, first.output());
        const api = client(first.baseUrl, { tokenId, clientSecret });
        assert.equal((await api.get('/platform/internal-accounts')).status, 200);
      } finally {
        await first.stop();
      }
      const second = await spawnServer(env);
      await second.stop();
      assert.doesNotMatch(second.stdout(), /clientSecret/, 'printed only on the first start');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
