import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from '../helpers/node-test.ts';
import { runCli } from '../helpers/processes.ts';

// A process that cannot start says why in one line, with no stack trace, and leaves nothing behind.
describe('start-up failures', () => {
  const dir = mkdtempSync(join(tmpdir(), 'payouts-startup-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const env = { ...process.env, DATA_DIR: dir, DATABASE_URL: '', LOG_LEVEL: 'silent' };
  const noStack = (stderr: string) => assert.doesNotMatch(stderr, /\n\s+at /, `no stack trace:\n${stderr}`);

  it('a port already in use is named, and the first start prints no credentials it would lose', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as { port: number };
    try {
      const result = await runCli(['serve'], { ...env, HOST: '127.0.0.1', PORT: String(port) });
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, new RegExp(`^payouts: port ${port} on 127\\.0\\.0\\.1 is already in use`));
      noStack(result.stderr);
      assert.doesNotMatch(result.stdout, /clientSecret/, 'no credentials printed by a start that cannot serve');
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('an unreachable database is named by host, port and name, never by its credentials', async () => {
    const url = 'postgres://someone:hunter2@127.0.0.1:1/payouts';
    const result = await runCli(['migrate'], { ...env, DATABASE_URL: url, SECRET_KEY: 'ab'.repeat(32) });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /^payouts: cannot reach the database at 127\.0\.0\.1:1\/payouts \(ECONNREFUSED\)/m);
    assert.doesNotMatch(result.stderr, /hunter2/, 'the password is never printed');
    noStack(result.stderr);
  });

  it('a HOST that does not resolve is named', async () => {
    const result = await runCli(['serve'], { ...env, HOST: 'no-such-host.invalid', PORT: '0' });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /^payouts: HOST no-such-host\.invalid does not resolve/);
    noStack(result.stderr);
  });
});
