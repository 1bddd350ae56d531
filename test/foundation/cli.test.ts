import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { client, startServer, type TestServer } from '../helpers/harness.ts';

const run = promisify(execFile);

describe('command line', () => {
  let server: TestServer;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    server = await startServer();
    // The CLI reads the same DATA_DIR / DATABASE_URL / SECRET_KEY as the running server.
    env = { ...process.env, DATA_DIR: server.config.dataDir, DATABASE_URL: server.config.databaseUrl ?? '', SECRET_KEY: server.config.secretKey.toString('hex'), LOG_LEVEL: 'silent' };
  });
  after(() => server.close());

  const payouts = (...args: string[]) => run(process.execPath, ['bin/payouts.mjs', ...args], { env });

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

    const token = await payouts('tokens', 'create', '--platform', created.platformId, '--env', 'sandbox', '--name', 'reader', '--permissions', 'VIEW', '--json');
    const reader = JSON.parse(token.stdout);
    assert.deepEqual(reader.permissions, ['VIEW']);
    const readerApi = client(server.baseUrl, { tokenId: reader.id, clientSecret: reader.clientSecret });
    assert.equal((await readerApi.get('/customers')).status, 200);
    assert.equal((await readerApi.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'q' })).status, 403);
  });

  it('refuses bad arguments with exit code 2', async () => {
    await assert.rejects(payouts('tokens', 'create', '--platform', 'Platform:nope', '--env', 'staging', '--name', 'x'), (err: any) => err.code === 2 && /--env/.test(err.stderr));
    await assert.rejects(payouts('frobnicate'), (err: any) => err.code === 2);
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
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { spawn } = await import('node:child_process');
    const { freePort } = await import('../helpers/processes.ts');
    const dataDir = mkdtempSync(join(tmpdir(), 'payouts-first-'));
    const start = async () => {
      const port = await freePort();
      const child = spawn(process.execPath, ['bin/payouts.mjs', 'serve'], {
        env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      for (let i = 0; i < 200; i++) {
        try {
          if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) break;
        } catch {
          // not yet listening
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      return { port, output: () => out, stop: () => new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.kill('SIGTERM'))) };
    };
    try {
      const first = await start();
      const tokenId = /tokenId:\s+(\S+)/.exec(first.output())?.[1];
      const clientSecret = /clientSecret:\s+(\S+)/.exec(first.output())?.[1];
      assert.ok(tokenId && clientSecret, first.output());
      const api = client(`http://127.0.0.1:${first.port}`, { tokenId, clientSecret });
      assert.equal((await api.get('/platform/internal-accounts')).status, 200);
      await first.stop();
      const second = await start();
      assert.doesNotMatch(second.output(), /clientSecret/, 'printed only on the first start');
      await second.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
