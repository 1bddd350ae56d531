/**
 * POST /transactions/{id}/cancel for payments a connector holds, and the bound on calls at once to one
 * connector (`maxInFlight`), with the reference adapter (examples/http-adapter/server.mjs) as a real process.
 * USD goes to `acme` (cancels, at most 2 calls at once), CAD to `rigid` (declares it cannot cancel), both in
 * front of the one adapter. On the engine under test.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { signedHeaders } from '../../src/rails/http/signing.ts';
import { BUILD } from '../external-accounts/fixtures.ts';
import { after, before, describe, it } from '../helpers/node-test.ts';
import { useServer, type TestPlatform } from '../helpers/harness.ts';
import { freePort, type Daemon } from '../helpers/processes.ts';
import { spawnReferenceAdapter } from '../helpers/reference-adapter.ts';
import { tempDir } from '../helpers/temp-dirs.ts';
import { waitFor } from '../helpers/wait.ts';
import { eventTypes, fundedCustomer, externalAccount } from '../money/fixtures.ts';

const KEY = randomBytes(32);
const SECRET = `whsec_${KEY.toString('base64')}`;
const OPERATOR = randomBytes(24).toString('hex');
const MAX_IN_FLIGHT = 2;
/** The adapter answers each POST /payouts this late: calls pile up, and the bound shows. */
const DELAY_ANSWER_MS = 300;

describe('cancelling a payment a connector holds, and the bound on calls at once', () => {
  const folder = tempDir('connector-cancel');
  const file = join(folder, 'connectors.json');
  let adapterPort = 0;
  let adapter: Daemon | undefined;
  let p: TestPlatform;
  let customerId: string;

  before(async () => {
    adapterPort = await freePort();
    const http = { type: 'http', url: `http://127.0.0.1:${adapterPort}`, secret: { env: 'ACME_SECRET' } };
    const connectors = {
      acme: { ...http, pollIntervalMs: 60_000, maxInFlight: MAX_IN_FLIGHT },
      // The adapter calls back as `acme`, so `rigid` learns outcomes by polling.
      rigid: { ...http, pollIntervalMs: 300, cancel: false },
    };
    const routes = [
      { currency: 'USD', connector: 'acme' },
      { currency: 'CAD', connector: 'rigid' },
    ];
    writeFileSync(file, JSON.stringify({ connectors, routes }));
  });
  const server = useServer({ CONNECTORS_FILE: file, ACME_SECRET: SECRET, OPERATOR_TOKEN: OPERATOR });

  async function startAdapter(): Promise<void> {
    adapter = await spawnReferenceAdapter({
      port: adapterPort,
      secret: SECRET,
      serviceUrl: server.baseUrl,
      settleAfterMs: 50,
      delayAnswerMs: DELAY_ANSWER_MS,
      stateFile: join(folder, 'adapter-state.json'),
    });
  }
  after(() => adapter?.stop());

  before(async () => {
    await startAdapter();
    p = await server.platform('cancelling');
    customerId = (await p.prod.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'c-1' })).body.id;
  });

  const internal = async (currency: string) =>
    (await p.prod.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&currency=${currency}`))
      .body.data[0] as { id: string; balance: { amount: number } };
  const bankAccount = async (type: 'USD_ACCOUNT' | 'CAD_ACCOUNT', tail: string): Promise<string> => {
    const res = await p.prod.post('/customers/external-accounts', { ...BUILD[type](tail), customerId });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    await server.app.services.externalAccounts.activate(res.body.id);
    return res.body.id;
  };
  const transaction = async (id: string) => (await p.prod.get(`/transactions/${id}`)).body;
  const settled = (id: string, status: string, timeoutMs = 15_000) =>
    waitFor(async () => (await transaction(id)).status === status, `${id} ${status}`, timeoutMs, 50);
  const atAdapter = async (method: 'GET' | 'POST', path: string) => {
    const res = await fetch(`http://127.0.0.1:${adapterPort}${path}`, {
      method,
      headers: signedHeaders(KEY, '', Date.now()),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const payoutAt = (id: string) => atAdapter('GET', `/payouts/${encodeURIComponent(id)}`);
  /** Money in through the connector of `currency`: a pull from a bank account, settled by the adapter. */
  const fund = async (type: 'USD_ACCOUNT' | 'CAD_ACCOUNT', amount: number) => {
    const { id: destination } = await internal(type === 'USD_ACCOUNT' ? 'USD' : 'CAD');
    const pull = await p.prod.post('/transfer-in', {
      source: { accountId: await bankAccount(type, '000') },
      destination: { accountId: destination },
      amount,
    });
    assert.equal(pull.status, 201, JSON.stringify(pull.body));
    await settled(pull.body.id, 'COMPLETED');
  };
  /** A payout the adapter keeps PENDING (…006), once the adapter has it. */
  const heldPayout = async (type: 'USD_ACCOUNT' | 'CAD_ACCOUNT', amount: number) => {
    const source = await internal(type === 'USD_ACCOUNT' ? 'USD' : 'CAD');
    const out = await p.prod.post('/transfer-out', {
      source: { accountId: source.id },
      destination: { accountId: await bankAccount(type, '006') },
      amount,
    });
    assert.equal(out.status, 201, JSON.stringify(out.body));
    await waitFor(async () => (await payoutAt(out.body.id)).status === 200, 'the adapter has it', 15_000, 50);
    return out.body.id as string;
  };

  it('a payout the adapter still holds is cancelled there, then FAILED and refunded as a cancellation', async () => {
    await fund('USD_ACCOUNT', 10_000);
    const id = await heldPayout('USD_ACCOUNT', 2_500);
    assert.equal((await internal('USD')).balance.amount, 7_500);
    assert.equal((await transaction(id)).status, 'PROCESSING');
    const res = await p.prod.post(`/transactions/${id}/cancel`, {});
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      [res.body.status, res.body.failureReason, res.body.refund?.status, res.body.refund?.reason],
      ['FAILED', 'COUNTERPARTY_POST_TX_FAILED', 'COMPLETED', 'USER_CANCELLATION'],
    );
    assert.equal((await internal('USD')).balance.amount, 10_000, 'the money is back');
    assert.equal((await payoutAt(id)).body.status, 'FAILED', 'cancelled at the rail');
    assert.deepEqual(await eventTypes(server, id), [
      'OUTGOING_PAYMENT.PENDING',
      'OUTGOING_PAYMENT.PROCESSING',
      'OUTGOING_PAYMENT.FAILED',
      'OUTGOING_PAYMENT.REFUND_COMPLETED',
    ]);
    const again = await p.prod.post(`/transactions/${id}/cancel`, {});
    assert.deepEqual([again.status, again.body.code], [409, 'TRANSACTION_NOT_CANCELLABLE']);
    assert.equal((await internal('USD')).balance.amount, 10_000, 'refunded once');
  });

  it('a rail that says it is too late answers 409 naming why; nothing changes until the rail says more', async () => {
    const id = await heldPayout('USD_ACCOUNT', 1_000);
    const held = (await internal('USD')).balance.amount;
    // The rail gives up the payout by itself, and the service has not heard of it yet.
    assert.equal((await atAdapter('POST', `/payouts/${encodeURIComponent(id)}/cancel`)).status, 200);
    const res = await p.prod.post(`/transactions/${id}/cancel`, {});
    assert.deepEqual(
      [res.status, res.body.code, res.body.details?.reason, res.body.details?.connector],
      [409, 'TRANSACTION_NOT_CANCELLABLE', 'RAIL_REFUSED_CANCEL', 'acme'],
    );
    assert.match(res.body.message, /refused the cancel \(409\)/);
    assert.equal((await transaction(id)).status, 'PROCESSING', 'not failed by guesswork');
    assert.equal((await internal('USD')).balance.amount, held);
  });

  it('a connector that cannot cancel, and the sandbox, answer 409 naming it; nothing is called', async () => {
    await fund('CAD_ACCOUNT', 5_000);
    const id = await heldPayout('CAD_ACCOUNT', 1_000);
    const res = await p.prod.post(`/transactions/${id}/cancel`, {});
    assert.deepEqual(
      [res.status, res.body.details?.reason, res.body.details?.connector],
      [409, 'CONNECTOR_CANNOT_CANCEL', 'rigid'],
    );
    assert.equal((await payoutAt(id)).body.status, 'PENDING', 'the adapter was not asked');
    assert.equal((await transaction(id)).status, 'PROCESSING');
    // The rail gives the payout up by itself: the next poll brings the word, and the payment fails then.
    assert.equal((await atAdapter('POST', `/payouts/${encodeURIComponent(id)}/cancel`)).status, 200);
    await settled(id, 'FAILED');
    // A sandbox payout whose rail answers in 30 s (…005) is PROCESSING with the sandbox's simulated rail.
    const { customerId: payer, accountId } = await fundedCustomer(p, 'USD', 1_000);
    const slow = await p.api.post('/transfer-out', {
      source: { accountId },
      destination: { accountId: await externalAccount(p, payer, 'USD_ACCOUNT', '005') },
      amount: 100,
    });
    await waitFor(
      async () => (await p.api.get(`/transactions/${slow.body.id}`)).body.status === 'PROCESSING',
      'the sandbox payout processing',
    );
    const sandbox = await p.api.post(`/transactions/${slow.body.id}/cancel`, {});
    assert.deepEqual(
      [sandbox.status, sandbox.body.details?.reason, sandbox.body.details?.connector],
      [409, 'CONNECTOR_CANNOT_CANCEL', 'sandbox'],
    );
  });

  it('a cancel of unknown outcome leaves the payment PROCESSING and says so; asked again, it cancels', async () => {
    const id = await heldPayout('USD_ACCOUNT', 500);
    await adapter?.stop();
    const res = await p.prod.post(`/transactions/${id}/cancel`, {});
    assert.deepEqual([res.status, res.body.details?.reason], [409, 'CANCEL_OUTCOME_UNKNOWN'], JSON.stringify(res.body));
    assert.match(res.body.message, /stays PROCESSING/);
    assert.equal((await transaction(id)).status, 'PROCESSING', 'never failed by guesswork');
    await startAdapter();
    const again = await p.prod.post(`/transactions/${id}/cancel`, {});
    assert.deepEqual([again.status, again.body.status], [200, 'FAILED'], JSON.stringify(again.body));
  });

  it(`never has more than maxInFlight (${MAX_IN_FLIGHT}) calls at the adapter at once; the rest wait`, async () => {
    await fund('USD_ACCOUNT', 6_000);
    const source = (await internal('USD')).id;
    const bank = await bankAccount('USD_ACCOUNT', '000');
    const outs = await Promise.all(
      Array.from({ length: 6 }, () =>
        p.prod.post('/transfer-out', { source: { accountId: source }, destination: { accountId: bank }, amount: 100 }),
      ),
    );
    for (const out of outs) assert.equal(out.status, 201, JSON.stringify(out.body));
    for (const out of outs) await settled(out.body.id, 'COMPLETED', 30_000);
    const stats = (await atAdapter('GET', '/stats')).body;
    assert.equal(stats.maxInFlight, MAX_IN_FLIGHT, `the adapter saw at most ${MAX_IN_FLIGHT} at once, and that many`);
  });
});
