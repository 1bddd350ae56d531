// A quiet, safe local default: one readable line per log entry when stdout is a terminal, JSON lines
// otherwise; the embedded sandbox listens on 127.0.0.1 unless HOST says otherwise (a shared database's
// server on every interface, as before). Real processes on a real pseudo-terminal.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { after, describe, it } from '../helpers/node-test.ts';
import { spawnServer, type ServerProcess } from '../helpers/processes.ts';
import { waitFor } from '../helpers/wait.ts';

describe('the local default', () => {
  const dirs: string[] = [];
  const freshDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'payouts-local-'));
    dirs.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** The ready line comes just after the port opens (which is all spawnServer waits for): stop only once it has. */
  const readyLogged = (server: ServerProcess) =>
    waitFor(() => server.output().includes('payouts service ready'), 'the ready line', 30_000).catch(() => undefined);

  it('logs one readable line per entry on a terminal, never JSON', async () => {
    const server = await spawnServer({ DATA_DIR: freshDir(), DATABASE_URL: '', LOG_LEVEL: 'info' }, undefined, {
      tty: true,
    });
    await readyLogged(server);
    await server.stop();
    const ready = server
      .output()
      .split(/\r?\n/)
      .find((line) => line.includes('payouts service ready'));
    assert.ok(ready, `a ready line:\n${server.output()}`);
    assert.ok(!ready.trimStart().startsWith('{'), `not JSON on a terminal: ${ready}`);
    assert.match(ready, /INFO/, `the level is spelled out: ${ready}`);
  });

  it('logs JSON lines when stdout is not a terminal', async () => {
    const server = await spawnServer({ DATA_DIR: freshDir(), DATABASE_URL: '', LOG_LEVEL: 'info' });
    await readyLogged(server);
    await server.stop();
    const ready = server
      .output()
      .split('\n')
      .find((line) => line.includes('payouts service ready'));
    assert.ok(ready, `a ready line:\n${server.output()}`);
    assert.equal(JSON.parse(ready).msg, 'payouts service ready', 'a JSON line for a collector');
  });

  it('listens on 127.0.0.1 for the embedded sandbox, on every interface for a shared database, or on HOST', () => {
    const dataDir = freshDir();
    assert.equal(loadConfig({ DATA_DIR: dataDir }).host, '127.0.0.1', 'embedded: loopback only');
    const shared = { DATA_DIR: dataDir, DATABASE_URL: 'postgres://p@127.0.0.1:5432/x', SECRET_KEY: 'ab'.repeat(32) };
    assert.equal(loadConfig(shared).host, '0.0.0.0', 'a shared database: every interface, as before');
    assert.equal(loadConfig({ DATA_DIR: dataDir, HOST: '0.0.0.0' }).host, '0.0.0.0', 'HOST wins');
    assert.equal(loadConfig({ DATA_DIR: dataDir }).sandboxWorkspaces.mode, 'open', 'so workspaces are open');
  });
});
