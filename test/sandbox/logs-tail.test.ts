// `payouts logs tail` against a real `payouts serve` process started with preset sandbox credentials: the
// recent requests one line each (or JSON lines), filtered, and with the default follow every new request
// as it comes until the process is stopped. Real processes, real HTTP.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, type Client } from '../helpers/harness.ts';
import { after, before, describe, it } from '../helpers/node-test.ts';
import { runCli, runCliOk, spawnDaemon, spawnServer, type ServerProcess } from '../helpers/processes.ts';
import { waitFor } from '../helpers/wait.ts';

const TOKEN_ID = 'Token:00000000-0000-4000-8000-00000000d0d0';
const SECRET = 'logs-tail-secret-0123456789abcdef';
/** The CLI reads only its flags: nothing from this test's environment (SANDBOX_*, PAYOUTS_URL) reaches it. */
const ENV = { PATH: process.env.PATH ?? '' };

describe('payouts logs tail', () => {
  let dataDir: string;
  let server: ServerProcess;
  let api: Client;
  let flags: string[];
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'payouts-logs-'));
    server = await spawnServer({
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      SANDBOX_TOKEN_ID: TOKEN_ID,
      SANDBOX_CLIENT_SECRET: SECRET,
    });
    api = client(server.baseUrl, { tokenId: TOKEN_ID, clientSecret: SECRET });
    flags = ['--url', server.baseUrl, '--token-id', TOKEN_ID, '--client-secret', SECRET];
    const requests: Array<[string, string, unknown?]> = [
      ['GET', '/customers'],
      ['POST', '/customers', { customerType: 'INDIVIDUAL' }],
      ['GET', '/customers/Customer:00000000-0000-7000-8000-000000000000'],
    ];
    for (const [i, [method, path, body]] of requests.entries()) {
      await api.request(method, path, body, { 'x-request-id': `tail-${i}`, 'idempotency-key': `key-${i}` });
    }
  });
  after(async () => {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints the recent requests, oldest first, one line each, and stops with --no-follow', async () => {
    const { stdout } = await runCliOk(['logs', 'tail', '--no-follow', ...flags], ENV);
    const lines = stdout.trim().split('\n');
    assert.equal(lines.length, 3, stdout);
    assert.match(lines[0]!, /^\S+Z {2}200 {2}GET {4}\/customers {2}\d+ ms {2}tail-0 {2}idempotency-key=key-0$/, stdout);
    assert.match(lines[1]!, /400 {2}POST {3}\/customers .* tail-1 {2}INVALID_INPUT {2}idempotency-key=key-1$/, stdout);
    assert.match(lines[2]!, /404 .*tail-2/, stdout);
  });

  it('prints JSON lines with --json, filtered by the options', async () => {
    const { stdout } = await runCliOk(['logs', 'tail', '--no-follow', '--json', '--status', '4xx', ...flags], ENV);
    const entries = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { requestId: string; status: number; errorCode: string });
    assert.deepEqual(
      entries.map((e) => [e.requestId, e.status]),
      [
        ['tail-1', 400],
        ['tail-2', 404],
      ],
      'the 4xx ones, oldest first',
    );
    const byMethod = await runCliOk(['logs', 'tail', '--no-follow', '--method', 'POST', ...flags], ENV);
    assert.equal(byMethod.stdout.trim().split('\n').length, 1, byMethod.stdout);
  });

  it('follows by default: each new request is printed as it comes, until the process is stopped', async () => {
    const follower = await spawnDaemon(
      process.execPath,
      ['--import', 'tsx', 'src/main.ts', 'logs', 'tail', '--limit', '1', ...flags],
      async () => true,
      'payouts logs tail',
    );
    try {
      await waitFor(() => follower.output().includes('following the request log'), 'the follow to start');
      assert.ok(follower.output().includes('tail-2'), `the most recent one first:\n${follower.output()}`);
      assert.ok(!follower.output().includes('tail-0'), `no older one with --limit 1:\n${follower.output()}`);
      await api.request('GET', '/customers', undefined, { 'x-request-id': 'tail-new' });
      await waitFor(() => follower.output().includes('tail-new'), 'the new request in the follow');
      assert.equal(follower.output().split('tail-new').length, 2, 'printed once');
    } finally {
      await follower.stop();
    }
  });

  it('refuses to run without credentials, and says so when no server answers', async () => {
    // The server's folder holds no credentials file to fall back on: its credentials were preset.
    const bare = await runCli(['logs', 'tail', '--no-follow', '--url', server.baseUrl], { ...ENV, DATA_DIR: dataDir });
    assert.equal(bare.code, 2, bare.stderr);
    assert.match(bare.stderr, /no credentials/, 'names what is missing');
    const wrong = await runCli(
      ['logs', 'tail', '--no-follow', ...flags.slice(0, 4), '--client-secret', `${SECRET}x`],
      ENV,
    );
    assert.equal(wrong.code, 1, wrong.stderr);
    assert.match(wrong.stderr, /401 UNAUTHORIZED/, 'the refusal in one line');
    const away = await runCli(['logs', 'tail', '--no-follow', ...flags.slice(2), '--url', 'http://127.0.0.1:1'], ENV);
    assert.equal(away.code, 1, away.stderr);
    assert.match(away.stderr, /no server answers at http:\/\/127\.0\.0\.1:1/, 'an unreachable server in one line');
  });
});
