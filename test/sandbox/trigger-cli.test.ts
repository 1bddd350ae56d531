// `payouts trigger EVENT` against real server processes: with the preset CI credentials (embedded database),
// and with a platform's own credentials on the run's engine (PostgreSQL when TEST_DATABASE_URL is set).
// Also the shared API client's failures: no server, no credentials, a refused secret, an unknown event.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TRIGGER_EVENTS } from '../../src/domain/sandbox-triggers.ts';
import { client, createTestDatabase } from '../helpers/harness.ts';
import { after, describe, it } from '../helpers/node-test.ts';
import { freePort, runCli, runCliOk, spawnServer } from '../helpers/processes.ts';

const TOKEN_ID = 'Token:00000000-0000-4000-8000-00000000c1c1';
const SECRET = 'ci-sandbox-secret-0123456789abcdef';
const PRESET = { tokenId: TOKEN_ID, clientSecret: SECRET };

/** The environment without anything that would point the command at a server or give it credentials. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['SANDBOX_TOKEN_ID', 'SANDBOX_CLIENT_SECRET', 'SANDBOX_CREDENTIALS_FILE', 'PAYOUTS_URL', 'PORT'])
    delete env[name];
  return { ...env, ...extra };
}

describe('payouts trigger', () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('runs a flow on a server started with the preset credentials, as a summary or as JSON', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'payouts-trigger-cli-'));
    dirs.push(dataDir);
    const server = await spawnServer({
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      SANDBOX_TOKEN_ID: TOKEN_ID,
      SANDBOX_CLIENT_SECRET: SECRET,
    });
    try {
      const env = cleanEnv({ SANDBOX_TOKEN_ID: TOKEN_ID, SANDBOX_CLIENT_SECRET: SECRET });
      const summary = await runCli(['trigger', 'OUTGOING_PAYMENT.COMPLETED', '--url', server.baseUrl], env);
      assert.equal(summary.code, 0, summary.stderr);
      assert.match(summary.stdout, /^OUTGOING_PAYMENT\.COMPLETED recorded: Webhook:\S+/, summary.stdout);
      const transactionId = /transactionId\s+(Transaction:\S+)/.exec(summary.stdout)?.[1];
      assert.ok(transactionId, `the summary names the payment: ${summary.stdout}`);
      const api = client(server.baseUrl, PRESET);
      assert.equal((await api.get(`/transactions/${transactionId}`)).body.status, 'COMPLETED', 'the payment completed');

      // Lenient on case; the server found through PAYOUTS_URL; --json prints the API's answer.
      const json = await runCli(['trigger', 'invitation.claimed', '--json'], { ...env, PAYOUTS_URL: server.baseUrl });
      assert.equal(json.code, 0, json.stderr);
      const answer = JSON.parse(json.stdout);
      assert.equal(answer.event, 'INVITATION.CLAIMED', 'the event, by its name');
      assert.ok(answer.objects.invitationCode, 'what it created');
      const logged = await api.get(`/webhook-events/${answer.eventId}`);
      assert.equal(logged.body.type, 'INVITATION.CLAIMED', 'the event is in the delivery log');

      const refused = await runCli(['trigger', 'TEST', '--url', server.baseUrl, '--client-secret', `${SECRET}x`], env);
      assert.equal(refused.code, 1, 'a refused request exits 1');
      assert.match(refused.stderr.trim(), /^payouts: POST \/sandbox\/trigger: 401 \w+: /, refused.stderr);
      assert.equal(refused.stderr.trim().split('\n').length, 1, 'in one line');
    } finally {
      await server.stop();
    }
  });

  it("works with a platform's own credentials on the run's database engine", async () => {
    const database = await createTestDatabase();
    try {
      await runCliOk(['migrate'], cleanEnv(database.env));
      const created = await runCliOk(
        ['platforms', 'create', '--name', 'trigger-cli', '--json'],
        cleanEnv(database.env),
      );
      const { sandbox } = JSON.parse(created.stdout);
      const server = await spawnServer(database.env);
      try {
        const flags = ['--url', server.baseUrl, '--token-id', sandbox.tokenId, '--client-secret', sandbox.clientSecret];
        const res = await runCli(['trigger', 'OUTGOING_PAYMENT.EXPIRED', '--json', ...flags], cleanEnv());
        assert.equal(res.code, 0, res.stderr);
        const answer = JSON.parse(res.stdout);
        assert.ok(answer.clockAdvancedMs > 0, 'the expiry moved the sandbox clock');
        const api = client(server.baseUrl, sandbox);
        assert.equal(
          (await api.get(`/transactions/${answer.objects.transactionId}`)).body.status,
          'EXPIRED',
          'expired',
        );
      } finally {
        await server.stop();
      }
    } finally {
      await database.drop();
    }
  });

  it('says in one line that no server answers, and exits 1', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const env = cleanEnv({ SANDBOX_TOKEN_ID: TOKEN_ID, SANDBOX_CLIENT_SECRET: SECRET });
    const res = await runCli(['trigger', 'TEST', '--url', url], env);
    assert.equal(res.code, 1, res.stderr);
    assert.match(res.stderr, new RegExp(`^payouts: no server answers at ${url} `), res.stderr);
    assert.equal(res.stderr.trim().split('\n').length, 1, 'one line');
    assert.equal(res.stdout, '', 'nothing on stdout');
  });

  it('is a usage error without credentials or with an unknown event (exit 2)', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const missing = await runCli(['trigger', 'TEST', '--url', url], cleanEnv());
    assert.equal(missing.code, 2, missing.stderr);
    assert.match(missing.stderr, /no credentials: pass --token-id and --client-secret/, missing.stderr);

    const env = cleanEnv({ SANDBOX_TOKEN_ID: TOKEN_ID, SANDBOX_CLIENT_SECRET: SECRET });
    const unknown = await runCli(['trigger', 'OUTGOING_PAYMENT.LOST', '--url', url], env);
    assert.equal(unknown.code, 2, unknown.stderr);
    assert.match(unknown.stderr, /unknown event "OUTGOING_PAYMENT\.LOST"; one of: /, unknown.stderr);
    for (const event of TRIGGER_EVENTS) assert.ok(unknown.stderr.includes(event), `the usage error lists ${event}`);
    assert.doesNotMatch(unknown.stderr, /Usage:/, 'one line: no usage dump scrolls it away');

    const badUrl = await runCli(['trigger', 'TEST', '--url', 'ftp://127.0.0.1'], env);
    assert.equal(badUrl.code, 2, badUrl.stderr);
    assert.match(badUrl.stderr, /--url takes an http\(s\) address/, badUrl.stderr);
  });
});
