import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { client, useServer } from '../helpers/harness.ts';
import { runCli, runCliOk } from '../helpers/processes.ts';
import { tempDir } from '../helpers/temp-dirs.ts';

describe('command line', () => {
  let env: NodeJS.ProcessEnv;
  const server = useServer();
  before(async () => {
    // The CLI reads the same DATA_DIR / DATABASE_URL / SECRET_KEY as the running server.
    env = {
      ...process.env,
      DATA_DIR: server.config.dataDir,
      DATABASE_URL: server.config.databaseUrl ?? '',
      SECRET_KEY: server.config.secretKey.toString('hex'),
      LOG_LEVEL: 'silent',
    };
  });

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

  it('--help on any command prints its usage and runs nothing; --version; an unknown option is one line', async () => {
    const fresh = join(tempDir('help'), 'data');
    const untouched = { ...env, DATA_DIR: fresh, DATABASE_URL: '' };
    for (const args of [
      ['serve', '--help'],
      ['migrate', '-h'],
      ['transactions', 'settle', '--help'],
      ['tokens', 'revoke', 'Token:x', '-h'],
      ['platforms', '--help'],
      ['restore', 'some.tar.gz', '--help'],
    ]) {
      const help = await runCli(args, untouched);
      assert.equal(help.code, 0, help.stderr);
      const words = args.filter((a) => /^[a-z]+$/.test(a)).join(' ');
      assert.match(help.stdout, new RegExp(`^Usage: payouts ${words}`), `usage of ${words}`);
    }
    assert.equal(existsSync(fresh), false, 'no data folder was created: nothing ran');
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    assert.equal((await runCli(['--version'], untouched)).stdout, `payouts ${version}\n`);
    const unknown = await runCli(['tokens', 'create', '--bogus'], env);
    assert.equal(unknown.code, 2, unknown.stderr);
    assert.equal(
      unknown.stderr,
      "payouts: unknown option '--bogus' (see `payouts tokens create --help`)\n",
      'one line',
    );
  });

  it('lists platforms and tokens, revokes a token (it stops working at once), never shows a secret', async () => {
    const created = JSON.parse((await payouts('platforms', 'create', '--name', 'to-list', '--json')).stdout);
    const listed = JSON.parse((await payouts('platforms', 'list', '--json')).stdout) as Array<{ id: string }>;
    assert.ok(
      listed.some((p) => p.id === created.platformId),
      'the new platform is listed',
    );
    assert.match((await payouts('platforms', 'list')).stdout, new RegExp(`^${created.platformId}\tto-list\t`, 'm'));
    const tokens = await payouts('tokens', 'list', '--platform', created.platformId, '--json');
    assert.deepEqual(
      (JSON.parse(tokens.stdout) as Array<{ id: string; environment: string; revokedAt: null }>).map((t) => [
        t.id,
        t.environment,
        t.revokedAt,
      ]),
      [
        [created.sandbox.tokenId, 'sandbox', null],
        [created.production.tokenId, 'production', null],
      ],
      'both environments, oldest first',
    );
    assert.ok(!tokens.stdout.includes(created.sandbox.clientSecret), 'no secret in a listing');
    const api = client(server.baseUrl, created.sandbox);
    assert.equal((await api.get('/customers')).status, 200, 'the token works before');
    const revoked = await payouts('tokens', 'revoke', created.sandbox.tokenId);
    assert.match(revoked.stdout, new RegExp(`^${created.sandbox.tokenId} revoked at `));
    assert.equal((await api.get('/customers')).status, 401, 'a revoked token stops working at once');
    assert.match((await payouts('tokens', 'list', '--platform', created.platformId)).stdout, /\tsandbox\t.*\trevoked /);
    const again = await runCli(['tokens', 'revoke', created.sandbox.tokenId], env);
    assert.equal(again.code, 1, again.stderr);
    assert.match(again.stderr, /already revoked/);
    const missing = await runCli(['tokens', 'list', '--platform', 'Platform:nope'], env);
    assert.equal(missing.code, 2, missing.stderr);
    assert.match(missing.stderr, /no platform Platform:nope/);
  });

  it('every command that writes names the database it used on stderr, never its credentials', async () => {
    const expected = server.config.databaseUrl
      ? (() => {
          const url = new URL(server.config.databaseUrl);
          return `PostgreSQL ${url.hostname}:${url.port || '5432'}${url.pathname}`;
        })()
      : `SQLite ${join(server.config.dataDir, 'payouts.sqlite')}`;
    const created = await payouts('platforms', 'create', '--name', 'named-db', '--json');
    assert.equal(created.stderr, `payouts: database: ${expected}\n`, 'the database, on stderr');
    const platformId = JSON.parse(created.stdout).platformId as string;
    const token = await payouts('tokens', 'create', '--platform', platformId, '--env', 'sandbox', '--name', 'n');
    assert.equal(token.stderr, `payouts: database: ${expected}\n`);
    const password = server.config.databaseUrl ? new URL(server.config.databaseUrl).password : '';
    if (password) assert.ok(!created.stderr.includes(password), 'no password');
    assert.equal((await payouts('platforms', 'list')).stderr, '', 'a read says nothing on stderr');
  });

  it('never creates a second embedded database: where DATA_DIR has none it names the path and the fix', async () => {
    const elsewhere = join(tempDir('elsewhere'), 'data');
    const wrong = { ...env, DATA_DIR: elsewhere, DATABASE_URL: '' };
    for (const args of [
      ['platforms', 'create', '--name', 'lost'],
      ['platforms', 'list'],
      ['tokens', 'revoke', 'Token:x'],
      ['ledger', 'verify'],
    ]) {
      const refused = await runCli(args, wrong);
      assert.equal(refused.code, 2, `${args.join(' ')}: ${refused.stderr}`);
      assert.match(
        refused.stderr,
        new RegExp(
          `no database at ${join(elsewhere, 'payouts.sqlite').replaceAll('/', '\\/')}: .*DATA_DIR.*payouts migrate`,
        ),
      );
    }
    assert.equal(existsSync(elsewhere), false, 'nothing was created: no folder, no key, no database');
  });

  it('migrates idempotently and verifies the ledger', async () => {
    const migrated = await payouts('migrate');
    assert.match(migrated.stdout, /up to date/);
    const verified = await payouts('ledger', 'verify');
    assert.match(verified.stdout, /ledger ok/);
  });
});
