/**
 * kill -9 of the server between "submitted" and "recorded": the adapter has taken the payout, the server
 * dies before it hears the answer. A new server on the same database submits it again, the same id, and the
 * adapter answers the payout it already holds: one payout at the rail, and the payment completes once.
 * Processes all the way: the reference adapter and two servers. On the engine under test.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { signedHeaders } from '../../src/rails/http/signing.ts';
import { client, createTestDatabase, type TestDatabase } from '../helpers/harness.ts';
import { after, before, describe, it } from '../helpers/node-test.ts';
import { freePort, runCliOk, spawnServer, type Daemon, type ServerProcess } from '../helpers/processes.ts';
import { spawnReferenceAdapter } from '../helpers/reference-adapter.ts';
import { tempDir } from '../helpers/temp-dirs.ts';
import { waitFor } from '../helpers/wait.ts';

const KEY = randomBytes(32);
const SECRET = `whsec_${KEY.toString('base64')}`;
/** How long the adapter holds its answer after recording a payout: the window the server is killed in. */
const ANSWER_DELAY_MS = 3_000;

describe('kill -9 between submit and record', () => {
  let database: TestDatabase;
  let adapter: Daemon;
  let adapterPort: number;
  const servers: ServerProcess[] = [];
  let env: Record<string, string>;

  before(async () => {
    database = await createTestDatabase();
    adapterPort = await freePort();
    const folder = tempDir('connector-crash');
    const file = join(folder, 'connectors.json');
    const acme = { type: 'http', url: `http://127.0.0.1:${adapterPort}`, secret: { env: 'ACME_SECRET' } };
    writeFileSync(
      file,
      JSON.stringify({
        connectors: { acme: { ...acme, pollIntervalMs: 500 } },
        routes: [{ currency: 'USD', connector: 'acme' }],
      }),
    );
    env = { ...database.env, CONNECTORS_FILE: file, ACME_SECRET: SECRET };
    // Its callbacks go nowhere (the servers' ports are not known yet): the servers learn outcomes by polling.
    adapter = await spawnReferenceAdapter({
      port: adapterPort,
      secret: SECRET,
      serviceUrl: `http://127.0.0.1:${await freePort()}`,
      delayAnswerMs: ANSWER_DELAY_MS,
    });
  });
  after(async () => {
    for (const server of servers) await server.stop();
    await adapter?.stop();
    await database?.drop();
  });

  const held = async () => {
    const res = await fetch(`http://127.0.0.1:${adapterPort}/payouts`, { headers: signedHeaders(KEY, '', Date.now()) });
    return ((await res.json()) as { payouts: { id: string; received: number; status: string }[] }).payouts;
  };

  /** A production platform with a customer whose USD account a pull through the adapter funded. */
  async function fundedCustomer(first: ServerProcess) {
    const created = JSON.parse(
      (await runCliOk(['platforms', 'create', '--name', 'crash', '--json'], { ...process.env, ...env })).stdout,
    );
    const api = client(first.baseUrl, created.production);
    const customer = (await api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'k-1' })).body;
    const usd = (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`)).body
      .data[0].id;
    const bank = await api.post('/customers/external-accounts', {
      customerId: customer.id,
      currency: 'USD',
      accountInfo: {
        accountType: 'USD_ACCOUNT',
        accountNumber: '000123456000',
        routingNumber: '021000021',
        beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Kill Nine' },
      },
    });
    assert.equal(bank.status, 201, JSON.stringify(bank.body));
    await runCliOk(['accounts', 'activate', bank.body.id], { ...process.env, ...env });
    const pull = await api.post('/transfer-in', {
      source: { accountId: bank.body.id },
      destination: { accountId: usd },
      amount: 5_000,
    });
    await waitFor(
      async () => (await api.get(`/transactions/${pull.body.id}`)).body.status === 'COMPLETED',
      'the funding pull',
      60_000,
      100,
    );

    return { created, api, customer, usd, bank };
  }

  it('leaves exactly one payout at the rail, and the payment completes once', { timeout: 240_000 }, async () => {
    const first = await spawnServer(env);
    servers.push(first);
    const { created, api, customer, usd, bank } = await fundedCustomer(first);

    const out = await api.post('/transfer-out', {
      source: { accountId: usd },
      destination: { accountId: bank.body.id },
      amount: 1_200,
    });
    assert.equal(out.status, 201, JSON.stringify(out.body));
    // The adapter recorded it and holds its answer: the server is killed before it can record anything.
    await waitFor(
      async () => (await held()).some((h) => h.id === out.body.id),
      'the adapter has the payout',
      30_000,
      20,
    );
    process.kill(first.pid, 'SIGKILL');
    await waitFor(
      async () =>
        !(await fetch(`${first.baseUrl}/healthz`).then(
          () => true,
          () => false,
        )),
      'the server is gone',
    );

    const second = await spawnServer(env);
    servers.push(second);
    const restarted = client(second.baseUrl, created.production);
    // The submit's lease runs out (60 s), the job runs again: the same id, so the adapter's payout, answered.
    await waitFor(
      async () => (await restarted.get(`/transactions/${out.body.id}`)).body.status === 'COMPLETED',
      'the payout completes',
      150_000,
      250,
    );
    const mine = (await held()).filter((h) => h.id === out.body.id);
    assert.equal(mine.length, 1, 'one payout at the rail');
    assert.ok(
      (mine[0]?.received ?? 0) >= 2,
      `submitted again after the crash, with the same id (${mine[0]?.received})`,
    );
    const balance = (await restarted.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`))
      .body.data[0].balance.amount;
    assert.equal(balance, 5_000 - 1_200, 'debited once');
    const verify = await runCliOk(['ledger', 'verify'], { ...process.env, ...env });
    assert.match(verify.stdout, /ledger ok/);
  });
});
