// Sandbox workspaces over HTTP: made in one call with credentials of their own, emptied by reset (their
// credentials and configuration kept), saved and brought back by snapshots. A reset or restore never
// touches another workspace's rows or production's; the harness checks the ledger when the server closes.
import assert from 'node:assert/strict';
import { client, startServer, useServer, type Client, type TestPlatform, type TestServer } from '../helpers/harness.ts';
import { after, before, describe, it } from '../helpers/node-test.ts';
import { externalAccount, fundedCustomer, runDueJobs } from '../money/fixtures.ts';
import { checkLedgerNow, lastLedgerCheck } from '../../src/ledger/checks.ts';

const ADMIN_KEY = 'admin-key-0123456789abcdef0123456789abcdef';

/** Row counts of one platform+environment in the tables a workspace holds. */
async function countsOf(server: TestServer, platformId: string, environment: 'sandbox' | 'production') {
  const counts: Record<string, number> = {};
  for (const table of ['customers', 'ledger_accounts', 'transactions', 'journal_entries', 'events', 'jobs'] as const) {
    const rows = await server.app.store.db
      .selectFrom(table)
      .select('platform_id')
      .where('platform_id', '=', platformId)
      .where('environment', '=', environment)
      .execute();
    counts[table] = rows.length;
  }
  return counts;
}

/** A workspace with one funded customer who paid out once (completed): rows in every table. */
async function busy(server: TestServer, p: TestPlatform): Promise<string> {
  const { customerId, accountId } = await fundedCustomer(p, 'USD', 10_000);
  const destination = await externalAccount(p, customerId, 'USD_ACCOUNT', '000');
  const sent = await p.api.post('/transfer-out', {
    source: { accountId },
    destination: { accountId: destination, currency: 'USD' },
    amount: 2_500,
  });
  assert.equal(sent.status, 201, JSON.stringify(sent.body));
  await runDueJobs(server);
  return customerId;
}

async function newWorkspace(baseUrl: string, headers: Record<string, string> = {}) {
  const made = await client(baseUrl).post('/sandbox/workspaces', { name: 'ws' }, headers);
  return made;
}

describe('sandbox workspaces (open on loopback)', () => {
  let other: TestPlatform;
  // No background worker: the test runs due jobs itself, so a snapshot never catches a payment mid-step.
  const server = useServer({ HOST: '127.0.0.1', RUN_WORKERS: 'false' });
  before(async () => {
    other = await server.platform('bystander');
  });

  it('are created in one call, with sandbox credentials of their own that work at once', async () => {
    const made = await newWorkspace(server.baseUrl);
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.match(made.body.platformId, /^Platform:/, 'a platform id');
    const api = client(server.baseUrl, { tokenId: made.body.tokenId, clientSecret: made.body.clientSecret });
    assert.equal((await api.get('/customers')).status, 200, 'the new credentials work');
    assert.equal((await api.get('/customers')).body.data.length, 0, 'an empty workspace');
    const second = await newWorkspace(server.baseUrl);
    assert.notEqual(second.body.platformId, made.body.platformId, 'each call makes another workspace');
  });

  it('reset empties the workspace, keeps its credentials and config, and leaves others alone', async () => {
    const made = await newWorkspace(server.baseUrl);
    const ws = { ...made.body, api: client(server.baseUrl, made.body) } as TestPlatform & { api: Client };
    const webhook = await ws.api.patch('/config', { webhookEndpoint: 'https://example.com/hooks' });
    assert.equal(webhook.status, 200, JSON.stringify(webhook.body));
    await busy(server, ws);
    await busy(server, other);
    assert.equal((await ws.api.post('/sandbox/clock/advance', { seconds: 3600 })).status, 200, 'clock moved');
    const bystanderBefore = await countsOf(server, other.platformId, 'sandbox');
    const productionBefore = await countsOf(server, ws.platformId, 'production');

    const scope = { platformId: ws.platformId, environment: 'sandbox' } as const;
    await checkLedgerNow(server.app.services.ctx, scope);
    assert.ok(await lastLedgerCheck(server.app.store, scope), 'the ledger was checked before the reset');

    const reset = await ws.api.post('/sandbox/reset');
    assert.equal(reset.status, 200, JSON.stringify(reset.body));
    assert.equal(await lastLedgerCheck(server.app.store, scope), undefined, 'a check of the old ledger is forgotten');
    assert.ok(reset.body.deletedRows > 10, `rows were deleted (${reset.body.deletedRows})`);
    const emptied = await countsOf(server, ws.platformId, 'sandbox');
    for (const table of ['customers', 'transactions', 'journal_entries', 'events', 'jobs']) {
      assert.equal(emptied[table], 0, `${table} emptied`);
    }
    assert.ok((emptied.ledger_accounts ?? 0) > 0, "the platform's own accounts stay");
    const platformAccounts = await ws.api.get('/platform/internal-accounts?currency=USD');
    assert.equal(platformAccounts.body.data[0].balance.amount, 0, 'with nothing in them');
    assert.equal((await ws.api.get('/sandbox/clock')).body.offsetMs, 0, 'the clock is back at real time');
    const config = await ws.api.get('/config');
    assert.equal(config.body.webhookEndpoint, 'https://example.com/hooks', 'the configuration stays');
    assert.deepEqual(
      await countsOf(server, other.platformId, 'sandbox'),
      bystanderBefore,
      'another workspace untouched',
    );
    assert.deepEqual(await countsOf(server, ws.platformId, 'production'), productionBefore, 'production untouched');
    assert.equal((await ws.api.get('/customers')).body.data.length, 0, 'no customers through the API');
    await busy(server, ws);
    assert.equal((await ws.api.get('/customers')).body.data.length, 1, 'the workspace works again after a reset');
  });

  it('a snapshot brings the whole state back, however the workspace changed since', async () => {
    const made = await newWorkspace(server.baseUrl);
    const ws = { ...made.body, api: client(server.baseUrl, made.body) } as TestPlatform & { api: Client };
    const customerId = await busy(server, ws);
    const customerBefore = (await ws.api.get(`/customers/${encodeURIComponent(customerId)}`)).body;
    const transactionsBefore = (await ws.api.get('/transactions')).body.data;
    const saved = await ws.api.post('/sandbox/snapshots', { name: 'one payout' }, { 'idempotency-key': 'snap-1' });
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    assert.match(saved.body.id, /^Snapshot:/, 'a snapshot id');
    assert.ok(saved.body.rows > 0, 'rows saved');

    await busy(server, ws);
    await ws.api.post('/sandbox/clock/advance', { seconds: 60 });
    assert.equal((await ws.api.post('/sandbox/reset')).status, 200, 'reset');
    const bystanderBefore = await countsOf(server, other.platformId, 'sandbox');

    const restored = await ws.api.post(`/sandbox/snapshots/${encodeURIComponent(saved.body.id)}/restore`);
    assert.equal(restored.status, 200, JSON.stringify(restored.body));
    assert.equal(restored.body.rows, saved.body.rows, 'every row back');
    assert.deepEqual(
      (await ws.api.get(`/customers/${encodeURIComponent(customerId)}`)).body,
      customerBefore,
      'the customer as it was',
    );
    assert.deepEqual(
      (await ws.api.get('/transactions')).body.data,
      transactionsBefore,
      'the transactions as they were',
    );
    assert.equal((await ws.api.get('/sandbox/clock')).body.offsetMs, 0, 'the clock as it was');
    assert.deepEqual(
      await countsOf(server, other.platformId, 'sandbox'),
      bystanderBefore,
      'another workspace untouched',
    );
    const again = await ws.api.post(`/sandbox/snapshots/${encodeURIComponent(saved.body.id)}/restore`);
    assert.equal(again.status, 200, 'a snapshot restores any number of times');
    const listed = await ws.api.get('/sandbox/snapshots');
    assert.deepEqual(
      listed.body.data.map((s: { id: string }) => s.id),
      [saved.body.id],
      'listed',
    );
    // The harness checks the ledger's invariants over every platform when this server closes.
  });

  it("refuses another workspace's snapshot, and production credentials", async () => {
    const a = await newWorkspace(server.baseUrl);
    const b = await newWorkspace(server.baseUrl);
    const aApi = client(server.baseUrl, a.body);
    const saved = await aApi.post('/sandbox/snapshots', {});
    const stolen = await client(server.baseUrl, b.body).post(
      `/sandbox/snapshots/${encodeURIComponent(saved.body.id)}/restore`,
    );
    assert.equal(stolen.status, 404, "another workspace's snapshot is not found");
    assert.equal((await other.prod.post('/sandbox/reset')).status, 403, 'production credentials cannot reset');
  });
});

describe('sandbox workspaces: who may create them', () => {
  const servers: TestServer[] = [];
  after(async () => {
    for (const s of servers) await s.close();
  });
  const start = async (env: Record<string, string>) => {
    const s = await startServer(env);
    servers.push(s);
    return s;
  };

  it('admin: only with the admin key in x-sandbox-admin-key', async () => {
    const server = await start({ HOST: '127.0.0.1', SANDBOX_WORKSPACES: 'admin', SANDBOX_ADMIN_KEY: ADMIN_KEY });
    assert.equal((await newWorkspace(server.baseUrl)).status, 403, 'no key');
    assert.equal((await newWorkspace(server.baseUrl, { 'x-sandbox-admin-key': 'wrong' })).status, 403, 'a wrong key');
    const made = await newWorkspace(server.baseUrl, { 'x-sandbox-admin-key': ADMIN_KEY });
    assert.equal(made.status, 201, JSON.stringify(made.body));
  });

  it('off: never; and not open by default off loopback', async () => {
    const off = await start({ HOST: '127.0.0.1', SANDBOX_WORKSPACES: 'off' });
    const refused = await newWorkspace(off.baseUrl);
    assert.equal(refused.status, 403, 'off');
    assert.match(refused.body.message, /SANDBOX_WORKSPACES=off/, 'names the setting');
    const wide = await start({ HOST: '0.0.0.0' });
    const noKey = await newWorkspace(wide.baseUrl);
    assert.equal(noKey.status, 403, 'admin by default on a non-loopback address');
    assert.match(noKey.body.message, /SANDBOX_ADMIN_KEY/, 'names the missing key');
  });
});
