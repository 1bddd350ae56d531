import { after, before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { startServer, type TestPlatform, type TestServer } from '../helpers/harness.ts';
import { balance, externalAccount, fundedCustomer } from '../money/fixtures.ts';
import { assertSigned, summary, useEndpoint } from '../incoming/fixtures.ts';
import { startReceiver, type Receiver } from './helpers.ts';

// Only drain() and the sandbox clock run jobs, so the test decides when each webhook leaves.
const ENV = { RUN_WORKERS: 'false' };

/**
 * Real payouts (quote execution, transfer-out) with a real local receiver: every event of each payment
 * arrives, in order, signed so that the key from GET /config verifies it and a changed byte does not.
 */
describe('webhooks of real payouts', () => {
  let server: TestServer;
  const receivers: Receiver[] = [];

  before(async () => {
    server = await startServer(ENV);
  });
  after(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await server.close();
  });

  async function platformWithReceiver(envelope: 'LEGACY' | 'CURRENT'): Promise<{ p: TestPlatform; r: Receiver }> {
    const r = await startReceiver();
    receivers.push(r);
    const p = await server.platform();
    assert.equal((await p.api.patch('/config', { webhookEnvelope: envelope })).status, 200);
    await useEndpoint(server, p, r.url);
    r.received.length = 0;
    return { p, r };
  }

  const drain = (p: TestPlatform) => server.app.services.worker.drain({ platformId: p.platformId });

  /** The deliveries about one transaction, as `TYPE status` (legacy) or `OBJECT.EVENT status` (current). */
  const about = (r: Receiver, id: string) =>
    r.received.filter((g) => (g.body.transaction ?? g.body.data)?.id === id).map(summary);

  async function executeQuoteTo(p: TestPlatform, tail: string): Promise<{ transactionId: string; customerId: string }> {
    const payer = await fundedCustomer(p, 'USD', 100_000);
    const destination = await externalAccount(p, payer.customerId, 'EUR_ACCOUNT', tail);
    const quote = await p.api.post('/quotes', {
      source: { sourceType: 'ACCOUNT', accountId: payer.accountId },
      destination: { destinationType: 'ACCOUNT', accountId: destination, paymentRail: 'SEPA_INSTANT' },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10_000,
    });
    assert.equal(quote.status, 201, JSON.stringify(quote.body));
    const executed = await p.api.post(`/quotes/${quote.body.id}/execute`);
    assert.equal(executed.status, 200, JSON.stringify(executed.body));
    return { transactionId: quote.body.transactionId, customerId: payer.customerId };
  }

  for (const envelope of ['CURRENT', 'LEGACY'] as const) {
    it(`a completed quote payout: PENDING, PROCESSING, COMPLETED arrive in order, signed (${envelope})`, async () => {
      const { p, r } = await platformWithReceiver(envelope);
      const { transactionId, customerId } = await executeQuoteTo(p, '000');
      await drain(p);
      const expected =
        envelope === 'CURRENT'
          ? [
              'OUTGOING_PAYMENT.PENDING PENDING',
              'OUTGOING_PAYMENT.PROCESSING PROCESSING',
              'OUTGOING_PAYMENT.COMPLETED COMPLETED',
            ]
          : ['OUTGOING_PAYMENT PENDING', 'OUTGOING_PAYMENT PROCESSING', 'OUTGOING_PAYMENT COMPLETED'];
      assert.deepEqual(about(r, transactionId), expected);
      const completed = r.received.at(-1)!.body;
      assert.ok((completed.transaction ?? completed.data).settledAt, 'the completed event carries settledAt');
      assert.equal(await balance(p, customerId), 90_000);
      await assertSigned(p, r.received);
    });

    it(
      `a failed quote payout (suffix 004): FAILED with its reason and refund (CURRENT: then the refund event), ` +
        `in order, signed (${envelope})`,
      async () => {
        const { p, r } = await platformWithReceiver(envelope);
        const { transactionId, customerId } = await executeQuoteTo(p, '004');
        await drain(p);
        const expected =
          envelope === 'CURRENT'
            ? [
                'OUTGOING_PAYMENT.PENDING PENDING',
                'OUTGOING_PAYMENT.PROCESSING PROCESSING',
                'OUTGOING_PAYMENT.FAILED FAILED',
                'OUTGOING_PAYMENT.REFUND_COMPLETED FAILED',
              ]
            : // The specification's envelope: one notification per status; the FAILED one carries the refund.
              ['OUTGOING_PAYMENT PENDING', 'OUTGOING_PAYMENT PROCESSING', 'OUTGOING_PAYMENT FAILED'];
        assert.deepEqual(about(r, transactionId), expected);
        const failedAt = expected.indexOf(
          envelope === 'CURRENT' ? 'OUTGOING_PAYMENT.FAILED FAILED' : 'OUTGOING_PAYMENT FAILED',
        );
        const sent = r.received.map((g) => g.body.transaction ?? g.body.data).filter((t) => t?.id === transactionId);
        assert.equal(sent[failedAt].failureReason, 'COUNTERPARTY_POST_TX_FAILED', 'the FAILED one names the failure');
        assert.equal(sent[failedAt].refund.status, 'COMPLETED', 'the FAILED one carries the refund');
        assert.equal(sent.at(-1).refund.status, 'COMPLETED', 'so does the last one');
        assert.equal(await balance(p, customerId), 100_000, 'refunded in full');
        await assertSigned(p, r.received);
      },
    );
  }

  it('a transfer-out: PENDING, PROCESSING, COMPLETED arrive in order once the worker runs, signed', async () => {
    const { p, r } = await platformWithReceiver('CURRENT');
    const payer = await fundedCustomer(p, 'USD', 50_000);
    const destination = await externalAccount(p, payer.customerId, 'US_ACCOUNT', '000');
    const res = await p.api.post('/transfer-out', {
      source: { accountId: payer.accountId },
      destination: { accountId: destination },
      amount: 20_000,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(r.received, [], 'nothing leaves before the worker runs');
    await drain(p);
    assert.deepEqual(about(r, res.body.id), [
      'OUTGOING_PAYMENT.PENDING PENDING',
      'OUTGOING_PAYMENT.PROCESSING PROCESSING',
      'OUTGOING_PAYMENT.COMPLETED COMPLETED',
    ]);
    assert.equal(await balance(p, payer.customerId), 30_000);
    await assertSigned(p, r.received);
  });

  it(
    'a failed transfer-out (suffix 004) and a delayed one (005, 30 s on the sandbox clock): failure and ' +
      'refund events, signed',
    async () => {
      const { p, r } = await platformWithReceiver('CURRENT');
      const payer = await fundedCustomer(p, 'USD', 50_000);
      const failing = await externalAccount(p, payer.customerId, 'US_ACCOUNT', '004');
      const slow = await externalAccount(p, payer.customerId, 'US_ACCOUNT', '005');
      const now = await p.api.post('/transfer-out', {
        source: { accountId: payer.accountId },
        destination: { accountId: failing },
        amount: 10_000,
      });
      const later = await p.api.post('/transfer-out', {
        source: { accountId: payer.accountId },
        destination: { accountId: slow },
        amount: 10_000,
      });
      await drain(p);
      const failedTypes = [
        'OUTGOING_PAYMENT.PENDING PENDING',
        'OUTGOING_PAYMENT.PROCESSING PROCESSING',
        'OUTGOING_PAYMENT.FAILED FAILED',
        'OUTGOING_PAYMENT.REFUND_COMPLETED FAILED',
      ];
      assert.deepEqual(about(r, now.body.id), failedTypes);
      assert.deepEqual(about(r, later.body.id), failedTypes.slice(0, 2), 'the 005 payment is still on its way');
      assert.equal((await p.api.post('/sandbox/clock/advance', { seconds: 30 })).status, 200);
      assert.deepEqual(about(r, later.body.id), failedTypes);
      assert.equal(await balance(p, payer.customerId), 50_000);
      await assertSigned(p, r.received);
    },
  );
});
