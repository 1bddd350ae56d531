// `payouts listen` against a real server process on the run's engine: it points a workspace's webhooks at a
// local receiver, prints each verified delivery, and on SIGTERM puts the endpoint that was there back.
import assert from 'node:assert/strict';
import { client, createTestDatabase, type TestDatabase } from '../helpers/harness.ts';
import { after, before, describe, it } from '../helpers/node-test.ts';
import { runCli, spawnDaemon, spawnServer, type ServerProcess } from '../helpers/processes.ts';
import { waitFor } from '../helpers/wait.ts';

const SOURCE_CLI = ['--import', 'tsx', 'src/main.ts'];

describe('payouts listen', () => {
  let database: TestDatabase;
  let server: ServerProcess;
  before(async () => {
    database = await createTestDatabase();
    server = await spawnServer(database.env);
  });
  after(async () => {
    await server.stop();
    await database.drop();
  });

  /** `payouts listen` for the workspace `made` on `baseUrl`, once it has pointed the endpoint at itself. */
  function startListening(baseUrl: string, made: { tokenId: string; clientSecret: string }) {
    const api = client(baseUrl, made);
    const flags = ['--url', baseUrl, '--token-id', made.tokenId, '--client-secret', made.clientSecret];
    return spawnDaemon(
      process.execPath,
      [...SOURCE_CLI, 'listen', ...flags],
      async () => (await api.get('/config')).body.webhookEndpoint?.startsWith('http://127.0.0.1:') === true,
      'payouts listen to point the endpoint at itself',
    );
  }

  it('prints the verified deliveries of a trigger, then puts the previous endpoint back', async () => {
    const made = await client(server.baseUrl).post('/sandbox/workspaces', { name: 'listen' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const api = client(server.baseUrl, made.body);
    const previous = 'https://platform.example/hooks';
    assert.equal((await api.patch('/config', { webhookEndpoint: previous })).status, 200, 'an endpoint was set');

    const listener = await startListening(server.baseUrl, made.body);
    try {
      const triggered = await api.post('/sandbox/trigger', { event: 'OUTGOING_PAYMENT.COMPLETED' });
      assert.equal(triggered.status, 201, JSON.stringify(triggered.body));
      const { eventId } = triggered.body as { eventId: string };
      await waitFor(
        () => listener.output().includes(eventId),
        `payouts listen to print ${eventId}\n${listener.output()}`,
      );
      const printed =
        listener
          .output()
          .split('\n')
          .find((line) => line.includes(eventId)) ?? '';
      assert.match(printed, /OUTGOING_PAYMENT\.COMPLETED\s+Webhook:\S+\s+Transaction:\S+\s+verified$/, printed);
    } finally {
      await listener.stop();
    }
    assert.equal((await api.get('/config')).body.webhookEndpoint, previous, 'the previous endpoint is back');
    assert.match(listener.output(), /payouts: \d+ verified, 0 refused/, listener.output());
  });

  it('ends when stopped after its sandbox has gone, saying it could not put the endpoint back', async () => {
    const own = await spawnServer(database.env);
    const made = await client(own.baseUrl).post('/sandbox/workspaces', { name: 'gone' });
    const listener = await startListening(own.baseUrl, made.body);
    await own.stop();
    await listener.stop();
    assert.equal(listener.ended(), 1, `it exited by itself, with an error code:\n${listener.output()}`);
    const last = listener.output().trim().split('\n').at(-1) ?? '';
    assert.match(
      last,
      /^payouts: .*127\.0\.0\.1/,
      `the last line names the server it could not reach:\n${listener.output()}`,
    );
  });

  it('refuses a port out of range as a usage error, before calling the server', async () => {
    const res = await runCli(['listen', '--port', '70000', '--url', server.baseUrl], process.env);
    assert.equal(res.code, 2, res.stderr);
    assert.match(res.stderr, /--port takes a port from 0 to 65535/, res.stderr);
  });
});
