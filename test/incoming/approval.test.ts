import { after, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { client, jobsFor, useServer, type TestPlatform } from '../helpers/harness.ts';
import { BUILD } from '../external-accounts/fixtures.ts';
import { balance, eventTypes, externalAccount } from '../money/fixtures.ts';
import { startReceiver, type Receiver, type Received } from '../webhooks/helpers.ts';
import { assertSigned, customer, summary, useEndpoint } from './fixtures.ts';

// Only the request itself, drain() and the sandbox clock run jobs here, so every step happens when a test says.
const ENV = { RUN_WORKERS: 'false', WEBHOOK_TIMEOUT_MS: '500' };
const AMOUNT = 12_345;

/** How the platform answers the approval webhook (INCOMING_PAYMENT with status PENDING); everything else gets 200. */
type Approver = (res: ServerResponse, got: Received) => void;
const reply =
  (status: number, body?: unknown): Approver =>
  (res) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(body === undefined ? '' : JSON.stringify(body));
  };

describe('incoming payments: the approval webhook and its answers', () => {
  const receivers: Receiver[] = [];

  const server = useServer(ENV);
  after(async () => {
    await Promise.all(receivers.map((r) => r.close()));
  });

  /** A platform whose webhooks go to a receiver that answers approval requests with `approver`. */
  async function platformAnswering(approver: Approver): Promise<{ p: TestPlatform; r: Receiver }> {
    const r = await startReceiver((_n, got, res) => {
      if (got.body.type === 'INCOMING_PAYMENT' && got.body.transaction?.status === 'PENDING') return approver(res, got);
      res.writeHead(200).end();
    });
    receivers.push(r);
    const p = await server.platform();
    await useEndpoint(server, p, r.url);
    r.received.length = 0;
    return { p, r };
  }

  const receive = (p: TestPlatform, body: Record<string, unknown>) => p.api.post('/sandbox/uma/receive', body);
  const drain = (p: TestPlatform) => server.app.services.worker.drain({ platformId: p.platformId });
  const advance = async (p: TestPlatform, seconds: number) =>
    assert.equal((await p.api.post('/sandbox/clock/advance', { seconds })).status, 200);
  const sender = '$alice@wallet.example.com';
  /** The states of the approval timeouts queued for a payment. */
  const timeouts = async (paymentId: string) =>
    (await jobsFor(server, 'incoming.approval-timeout', paymentId)).map((j) => j.status);
  /** A payment of `amount` USD from the sender to the customer. */
  const receiveUsd = (p: TestPlatform, customerId: string, amount = AMOUNT) =>
    receive(p, { senderUmaAddress: sender, customerId, receivingCurrencyCode: 'USD', receivingCurrencyAmount: amount });

  it('200 approves: COMPLETED, credited once, receiverCustomerInfo kept, and the webhooks are signed', async () => {
    const { p, r } = await platformAnswering(
      reply(200, { receiverCustomerInfo: { FULL_NAME: 'Rita Receiver', NATIONALITY: 'US' } }),
    );
    const c = await customer(p);
    const res = await receive(p, {
      senderUmaAddress: sender,
      receiverUmaAddress: c.umaAddress,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: AMOUNT,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const tx = res.body;
    assert.equal(tx.type, 'INCOMING');
    assert.equal(tx.status, 'COMPLETED');
    assert.ok(tx.settledAt, 'tx.settledAt');
    assert.deepEqual(tx.source, { sourceType: 'UMA_ADDRESS', umaAddress: sender, currency: 'USD' });
    assert.equal(tx.destination.destinationType, 'ACCOUNT');
    assert.match(tx.destination.accountId, /^InternalAccount:/);
    assert.equal(tx.receivedAmount.amount, AMOUNT);
    assert.equal(tx.customerId, c.id);
    assert.match(tx.platformCustomerId, /^payee-/);
    assert.equal(tx.senderUmaAddress, sender);
    assert.equal(tx.receiverUmaAddress, c.umaAddress);
    assert.match(tx.reconciliationInstructions.reference, /^UMA-[0-9A-F]{12}$/);
    assert.deepEqual(tx.counterpartyInformation, { FULL_NAME: 'Rita Receiver', NATIONALITY: 'US' });
    assert.equal(await balance(p, c.id), AMOUNT);

    // The approval request went out before the answer, as the legacy INCOMING_PAYMENT envelope.
    assert.equal(r.received.length, 1);
    const asked = r.received[0]!;
    assert.equal(asked.body.type, 'INCOMING_PAYMENT');
    assert.equal(asked.body.transaction.id, tx.id);
    assert.equal(asked.body.transaction.status, 'PENDING');
    assert.deepEqual(asked.body.transaction.reconciliationInstructions, tx.reconciliationInstructions);
    await drain(p);
    assert.deepEqual(r.received.map(summary), ['INCOMING_PAYMENT PENDING', 'INCOMING_PAYMENT COMPLETED']);
    await assertSigned(p, r.received);
    // PROCESSING is passed through inside the approval and is not an event of its own.
    assert.deepEqual(await eventTypes(server, tx.id), ['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.COMPLETED']);

    // The delivery log shows the approval request and what the platform answered.
    const events = (await p.api.get(`/webhook-events?objectId=${encodeURIComponent(tx.id)}`)).body.data;
    const pending = events.find((e: { type: string }) => e.type === 'INCOMING_PAYMENT.PENDING');
    const detail = (await p.api.get(`/webhook-events/${pending.id}`)).body;
    assert.equal(detail.deliveryState, 'DELIVERED');
    assert.equal(detail.attempts.length, 1);
    assert.equal(detail.attempts[0].responseStatus, 200);

    // Found again by its reference.
    const listed = (await p.api.get(`/transactions?reference=${tx.reconciliationInstructions.reference}`)).body.data;
    assert.deepEqual(
      listed.map((t: { id: string }) => t.id),
      [tx.id],
    );
  });

  it(
    '202 then /approve: PENDING until the platform approves, then ' + 'COMPLETED; the timeout then changes nothing',
    async () => {
      const { p, r } = await platformAnswering(reply(202));
      const c = await customer(p);
      const res = await receiveUsd(p, c.id);
      assert.equal(res.status, 200);
      assert.equal(res.body.status, 'PENDING');
      assert.equal(await balance(p, c.id), 0, 'nothing is credited before the approval');
      const approved = await p.api.post(`/transactions/${res.body.id}/approve`, {
        receiverCustomerInfo: { FULL_NAME: 'Rita Receiver' },
      });
      assert.equal(approved.status, 200, JSON.stringify(approved.body));
      assert.equal(approved.body.status, 'COMPLETED');
      assert.deepEqual(approved.body.counterpartyInformation, { FULL_NAME: 'Rita Receiver' });
      assert.equal(await balance(p, c.id), AMOUNT);
      assert.deepEqual(await timeouts(res.body.id), ['done'], 'the approval calls its timeout off before it runs');
      await advance(p, 6);
      assert.equal((await p.api.get(`/transactions/${res.body.id}`)).body.status, 'COMPLETED');
      assert.equal(await balance(p, c.id), AMOUNT);
      assert.deepEqual(r.received.map(summary), ['INCOMING_PAYMENT PENDING', 'INCOMING_PAYMENT COMPLETED']);
      await assertSigned(p, r.received);
      // Decided: approve and reject now answer 409.
      for (const action of ['approve', 'reject']) {
        const again = await p.api.post(`/transactions/${res.body.id}/${action}`);
        assert.equal(again.status, 409);
        assert.equal(again.body.code, 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');
      }
    },
  );

  it('202 then /reject: REJECTED with the reason, reported as INCOMING_PAYMENT.FAILED, nothing credited', async () => {
    const { p, r } = await platformAnswering(reply(202));
    const c = await customer(p);
    const res = await receiveUsd(p, c.id);
    assert.equal(res.body.status, 'PENDING');
    const rejected = await p.api.post(`/transactions/${res.body.id}/reject`, { reason: 'RESTRICTED_JURISDICTION' });
    assert.equal(rejected.status, 200, JSON.stringify(rejected.body));
    assert.equal(rejected.body.status, 'REJECTED');
    assert.deepEqual(rejected.body.failureDetails, { reason: 'RESTRICTED_JURISDICTION' });
    assert.equal(rejected.body.failureReason, undefined);
    assert.equal(await balance(p, c.id), 0);
    await drain(p);
    assert.deepEqual(r.received.map(summary), ['INCOMING_PAYMENT PENDING', 'INCOMING_PAYMENT REJECTED']);
    assert.deepEqual(await eventTypes(server, res.body.id), ['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.FAILED']);
    // A reject without a body is also accepted (on another payment).
    const second = await receiveUsd(p, c.id, 5);
    const bare = await p.api.post(`/transactions/${second.body.id}/reject`);
    assert.equal(bare.status, 200, JSON.stringify(bare.body));
    assert.equal(bare.body.status, 'REJECTED');
    assert.equal(bare.body.failureDetails, undefined);
  });

  it('202 to a redelivered approval request keeps the first deadline; /reject calls the timeout off', async () => {
    const { p, r } = await platformAnswering(reply(202));
    const c = await customer(p);
    const res = await receiveUsd(p, c.id);
    assert.equal(res.body.status, 'PENDING');
    await advance(p, 3);
    const asked = await server.app.store.db
      .selectFrom('events')
      .select('id')
      .where('object_id', '=', res.body.id)
      .where('type', '=', 'INCOMING_PAYMENT.PENDING')
      .executeTakeFirstOrThrow();
    assert.equal((await p.api.post(`/webhook-events/${asked.id}/redeliver`)).status, 202);
    await drain(p);
    assert.deepEqual(r.received.map(summary), ['INCOMING_PAYMENT PENDING', 'INCOMING_PAYMENT PENDING']);
    assert.deepEqual(await timeouts(res.body.id), ['pending'], 'one timeout for the payment');
    await advance(p, 2);
    const tx = (await p.api.get(`/transactions/${res.body.id}`)).body;
    assert.equal(tx.failureReason, 'PAYMENT_APPROVAL_TIMED_OUT', 'five seconds after the first 202, not the second');

    // Rejected while awaiting: its timeout is called off.
    const other = await receiveUsd(p, c.id);
    assert.equal((await p.api.post(`/transactions/${other.body.id}/reject`, { reason: 'no' })).status, 200);
    assert.deepEqual(await timeouts(other.body.id), ['done']);
  });

  it('202 and no decision: FAILED with PAYMENT_APPROVAL_TIMED_OUT once 5 s pass on the sandbox clock', async () => {
    const { p, r } = await platformAnswering(reply(202));
    const c = await customer(p);
    const res = await receiveUsd(p, c.id);
    assert.equal(res.body.status, 'PENDING');
    await advance(p, 4);
    assert.equal((await p.api.get(`/transactions/${res.body.id}`)).body.status, 'PENDING', 'still within the 5 s');
    await advance(p, 1);
    const tx = (await p.api.get(`/transactions/${res.body.id}`)).body;
    assert.equal(tx.status, 'FAILED');
    assert.equal(tx.failureReason, 'PAYMENT_APPROVAL_TIMED_OUT');
    assert.equal(await balance(p, c.id), 0);
    assert.deepEqual(r.received.map(summary), ['INCOMING_PAYMENT PENDING', 'INCOMING_PAYMENT FAILED']);
    assert.equal((await p.api.post(`/transactions/${tx.id}/approve`)).status, 409, 'too late to approve');
  });

  it("403 rejects with the platform's reason", async () => {
    const { p } = await platformAnswering(
      reply(403, { code: 'FORBIDDEN', message: 'not for us', reason: 'RESTRICTED_JURISDICTION' }),
    );
    const c = await customer(p);
    const res = await receiveUsd(p, c.id);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'REJECTED');
    assert.deepEqual(res.body.failureDetails, { reason: 'RESTRICTED_JURISDICTION' });
    assert.equal(await balance(p, c.id), 0);
  });

  it('422 fails with MISSING_MANDATORY_PAYEE_DATA and keeps the fields asked for', async () => {
    const { p } = await platformAnswering(
      reply(422, { code: 'MISSING_DATA', message: 'need more', requiredFields: ['TAX_ID', 'REGISTRATION_NUMBER'] }),
    );
    const c = await customer(p);
    const res = await receiveUsd(p, c.id);
    assert.equal(res.body.status, 'FAILED');
    assert.equal(res.body.failureReason, 'MISSING_MANDATORY_PAYEE_DATA');
    assert.deepEqual(res.body.failureDetails, { requiredFields: ['TAX_ID', 'REGISTRATION_NUMBER'] });
    assert.equal(await balance(p, c.id), 0);
  });

  it('500 fails with PAYMENT_APPROVAL_WEBHOOK_ERROR, and the approval request is not retried', async () => {
    const { p, r } = await platformAnswering(reply(500, { oops: true }));
    const c = await customer(p);
    const res = await receiveUsd(p, c.id);
    assert.equal(res.body.status, 'FAILED');
    assert.equal(res.body.failureReason, 'PAYMENT_APPROVAL_WEBHOOK_ERROR');
    assert.deepEqual(res.body.failureDetails, { responseStatus: 500 });
    await advance(p, 3600);
    assert.equal(r.received.filter((g) => g.body.transaction?.status === 'PENDING').length, 1, 'sent once');
    assert.deepEqual(r.received.map(summary), ['INCOMING_PAYMENT PENDING', 'INCOMING_PAYMENT FAILED']);
    assert.equal(await balance(p, c.id), 0);
  });

  it('connection refused fails with PAYMENT_APPROVAL_WEBHOOK_ERROR', async () => {
    const closed = await startReceiver();
    const url = closed.url;
    await closed.close();
    const p = await server.platform();
    await useEndpoint(server, p, url);
    const c = await customer(p);
    const res = await receiveUsd(p, c.id);
    assert.equal(res.body.status, 'FAILED');
    assert.equal(res.body.failureReason, 'PAYMENT_APPROVAL_WEBHOOK_ERROR');
    assert.equal(typeof res.body.failureDetails.error, 'string');
    assert.equal(await balance(p, c.id), 0);
  });

  it('a receiver that does not answer in time fails with PAYMENT_APPROVAL_WEBHOOK_ERROR', async () => {
    const { p } = await platformAnswering(() => undefined); // never answers; WEBHOOK_TIMEOUT_MS is 500
    const c = await customer(p);
    const res = await receiveUsd(p, c.id);
    assert.equal(res.body.status, 'FAILED');
    assert.equal(res.body.failureReason, 'PAYMENT_APPROVAL_WEBHOOK_ERROR');
    assert.match(res.body.failureDetails.error, /timed out/);
  });

  it('no webhook endpoint: the sandbox approves on its own', async () => {
    const p = await server.platform();
    const c = await customer(p);
    const res = await receiveUsd(p, c.id);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'COMPLETED');
    assert.equal(await balance(p, c.id), AMOUNT);
    const events = (await p.api.get(`/webhook-events?objectId=${encodeURIComponent(res.body.id)}`)).body.data;
    assert.ok(
      events.some(
        (e: { type: string; deliveryState: string }) =>
          e.type === 'INCOMING_PAYMENT.PENDING' && e.deliveryState === 'NO_ENDPOINT',
      ),
      'the approval request is recorded as NO_ENDPOINT',
    );
  });

  it(
    "deposits into the customer's ACTIVE default UMA deposit " + 'account: through settlement, no internal balance',
    async () => {
      const { p, r } = await platformAnswering(reply(200));
      const c = await customer(p);
      const created = await p.api.post('/customers/external-accounts', {
        ...BUILD.US_ACCOUNT('123'),
        customerId: c.id,
        defaultUmaDepositAccount: true,
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const res = await receiveUsd(p, c.id);
      assert.equal(res.body.status, 'COMPLETED');
      assert.deepEqual(res.body.destination, {
        destinationType: 'ACCOUNT',
        accountId: created.body.id,
        currency: 'USD',
      });
      assert.equal(await balance(p, c.id), 0, 'the internal account is not touched');
      const entries = await server.app.store.db
        .selectFrom('journal_entries')
        .select('kind')
        .where('reference', '=', res.body.id)
        .orderBy('created_at')
        .execute();
      assert.deepEqual(entries.map((e) => e.kind).sort(), ['FUND', 'SETTLE']);
      // In another currency the default account does not apply: the EUR internal account is credited.
      const eur = await receive(p, {
        senderUmaAddress: sender,
        customerId: c.id,
        receivingCurrencyCode: 'EUR',
        receivingCurrencyAmount: 700,
      });
      assert.match(eur.body.destination.accountId, /^InternalAccount:/);
      assert.equal(await balance(p, c.id, 'EUR'), 700);
      await drain(p);
      await assertSigned(p, r.received);
    },
  );

  it('approve racing reject and the timeout: exactly one wins', async () => {
    const { p } = await platformAnswering(reply(202));
    const c = await customer(p);
    for (let round = 0; round < 3; round++) {
      const res = await receiveUsd(p, c.id, 100);
      assert.equal(res.body.status, 'PENDING');
      const id = res.body.id;
      const [approve, reject] = await Promise.all([
        p.api.post(`/transactions/${id}/approve`),
        p.api.post(`/transactions/${id}/reject`, { reason: 'race' }),
        p.api.post('/sandbox/clock/advance', { seconds: 5 }),
      ]);
      const statuses = [approve.status, reject.status].sort((a, b) => a - b);
      const final = (await p.api.get(`/transactions/${id}`)).body.status;
      if (final === 'FAILED') assert.deepEqual(statuses, [409, 409], 'the timeout won');
      else {
        assert.deepEqual(statuses, [200, 409], `one of approve and reject won (${final})`);
        assert.equal(final, approve.status === 200 ? 'COMPLETED' : 'REJECTED');
      }
      const events = await eventTypes(server, id);
      assert.equal(events.length, 2, `one decision event: ${events.join(', ')}`);
    }
    const credited = (await p.api.get(`/transactions?customerId=${encodeURIComponent(c.id)}&status=COMPLETED`)).body
      .data.length;
    assert.equal(await balance(p, c.id), credited * 100);
  });

  it('approve and reject: 409 unless awaiting approval, 404 for unknown ids and other tenants', async () => {
    const { p } = await platformAnswering(reply(202));
    const other = await server.platform();
    const c = await customer(p);
    const res = await receiveUsd(p, c.id);
    for (const action of ['approve', 'reject']) {
      const foreign = await other.api.post(`/transactions/${res.body.id}/${action}`);
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.code, 'TRANSACTION_NOT_FOUND');
      assert.equal(
        (await p.api.post(`/transactions/Transaction:00000000-0000-0000-0000-000000000000/${action}`)).status,
        404,
      );
      // Production credentials see the production environment: the sandbox payment is not there.
      assert.equal((await p.prod.post(`/transactions/${res.body.id}/${action}`)).status, 404);
    }
    // An outgoing transaction is never awaiting a platform approval.
    const payer = await customer(p);
    const accounts = (
      await p.api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(payer.id)}&currency=USD`)
    ).body.data;
    await p.api.post(`/sandbox/internal-accounts/${accounts[0].id}/fund`, { amount: 1000 });
    const dest = await externalAccount(p, payer.id, 'US_ACCOUNT', '000');
    const out = await p.api.post('/transfer-out', {
      source: { accountId: accounts[0].id },
      destination: { accountId: dest },
      amount: 500,
    });
    assert.equal(out.status, 201, JSON.stringify(out.body));
    const notIncoming = await p.api.post(`/transactions/${out.body.id}/approve`);
    assert.equal(notIncoming.status, 409);
    assert.equal(notIncoming.body.code, 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');
    // A body of the wrong shape names its field.
    const bad = await p.api.post(`/transactions/${res.body.id}/approve`, { receiverCustomerInfo: 'yes' });
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /receiverCustomerInfo/);
    assert.equal((await p.api.post(`/transactions/${res.body.id}/reject`)).status, 200);
    await drain(p);
  });

  it(
    'sandbox only, TRANSACT only, and bad input answers 400 ' + 'naming the field (404 for unknown receivers)',
    async () => {
      const p = await server.platform();
      const c = await customer(p);
      const good = {
        senderUmaAddress: sender,
        customerId: c.id,
        receivingCurrencyCode: 'USD',
        receivingCurrencyAmount: AMOUNT,
      };
      const prod = await p.prod.post('/sandbox/uma/receive', good);
      assert.equal(prod.status, 403);
      assert.equal(prod.body.code, 'FORBIDDEN');
      const viewer = await p.api.post('/tokens', { name: 'viewer', permissions: ['VIEW'] });
      assert.equal(viewer.status, 201, JSON.stringify(viewer.body));
      const asViewer = client(server.baseUrl, { tokenId: viewer.body.id, clientSecret: viewer.body.clientSecret });
      assert.equal((await asViewer.post('/sandbox/uma/receive', good)).status, 403);

      const cases: Array<[Record<string, unknown>, string]> = [
        [{ ...good, senderUmaAddress: 'alice@example.com' }, 'senderUmaAddress'],
        [{ ...good, senderUmaAddress: undefined }, 'senderUmaAddress'],
        [{ ...good, receivingCurrencyCode: 'XYZ' }, 'receivingCurrencyCode'],
        [{ ...good, receivingCurrencyAmount: 0 }, 'receivingCurrencyAmount'],
        [{ ...good, receivingCurrencyAmount: -5 }, 'receivingCurrencyAmount'],
        [{ ...good, receivingCurrencyAmount: 1.5 }, 'receivingCurrencyAmount'],
        [{ ...good, receivingCurrencyAmount: '100' }, 'receivingCurrencyAmount'],
        [{ ...good, receivingCurrencyAmount: 2 ** 60 }, 'receivingCurrencyAmount'],
        [{ ...good, receiverUmaAddress: c.umaAddress }, 'receiverUmaAddress'],
        [{ ...good, customerId: undefined }, 'receiverUmaAddress'],
        [{ ...good, customerId: undefined, receiverUmaAddress: 'nope' }, 'receiverUmaAddress'],
      ];
      for (const [body, field] of cases) {
        const res = await p.api.post('/sandbox/uma/receive', JSON.parse(JSON.stringify(body)));
        assert.equal(res.status, 400, `${JSON.stringify(body)} → ${JSON.stringify(res.body)}`);
        assert.match(
          JSON.stringify(res.body),
          new RegExp(field),
          `${JSON.stringify(body)} names ${field}: ${JSON.stringify(res.body)}`,
        );
      }

      // Receivers that are not this platform's live customers: 404.
      const other = await server.platform();
      const stranger = await customer(other);
      for (const body of [
        { ...good, customerId: stranger.id },
        { ...good, customerId: undefined, receiverUmaAddress: stranger.umaAddress },
        { ...good, customerId: 'Customer:00000000-0000-0000-0000-000000000000' },
      ]) {
        const res = await p.api.post('/sandbox/uma/receive', body);
        assert.equal(res.status, 404, JSON.stringify(res.body));
        assert.equal(res.body.code, 'USER_NOT_FOUND');
      }
      const gone = await customer(p);
      assert.equal((await p.api.delete(`/customers/${gone.id}`)).status, 200);
      assert.equal((await p.api.post('/sandbox/uma/receive', { ...good, customerId: gone.id })).status, 404);

      // A currency the customer holds no account in names receivingCurrencyCode.
      const narrow = await server.platform();
      const config = (await narrow.api.get('/config')).body;
      const usdOnly = config.supportedCurrencies.filter((s: { currencyCode: string }) => s.currencyCode === 'USD');
      assert.equal((await narrow.api.patch('/config', { supportedCurrencies: usdOnly })).status, 200);
      const usdCustomer = await customer(narrow);
      const res = await narrow.api.post('/sandbox/uma/receive', {
        ...good,
        customerId: usdCustomer.id,
        receivingCurrencyCode: 'EUR',
      });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.details.field, 'receivingCurrencyCode');
      const none = await server.app.store.db
        .selectFrom('transactions')
        .select('id')
        .where('platform_id', '=', narrow.platformId)
        .execute();
      assert.equal(none.length, 0, 'nothing was written');
    },
  );
});
