import { after, before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { startServer, type TestPlatform, type TestServer } from '../helpers/harness.ts';
import { customer, useEndpoint } from '../incoming/fixtures.ts';
import { externalAccount, fundedCustomer } from '../money/fixtures.ts';
import { loadDocsVerifier, startReceiver, type Received, type Receiver, type VerifyWebhook } from './helpers.ts';

// Only drain() and the sandbox clock run jobs, so the test decides when each webhook leaves.
const ENV = { RUN_WORKERS: 'false' };
/** The header that names the fine-grained event type on every delivery. */
const TYPE_HEADER = 'x-webhook-event-type';

type Envelope = 'LEGACY' | 'CURRENT';

/**
 * A receiver must be able to tell every delivery apart. In the specification's envelope (LEGACY) each
 * status change of a payment is one notification, and a failed payment's refund rides on its one FAILED
 * notification; in both envelopes a header names the fine-grained type. Real HTTP receivers on
 * 127.0.0.1; every delivery is checked with the verifier of docs/webhooks.md (both signatures).
 */
describe('webhooks a receiver can tell apart', () => {
  let server: TestServer;
  let verifyWebhook: VerifyWebhook;
  const receivers: Receiver[] = [];

  before(async () => {
    server = await startServer(ENV);
    verifyWebhook = await loadDocsVerifier();
  });
  after(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await server.close();
  });

  async function platformWithReceiver(envelope: Envelope): Promise<{ p: TestPlatform; r: Receiver }> {
    const r = await startReceiver();
    receivers.push(r);
    const p = await server.platform();
    assert.equal((await p.api.patch('/config', { webhookEnvelope: envelope })).status, 200, 'envelope set');
    await useEndpoint(server, p, r.url);
    return { p, r };
  }

  const drain = (p: TestPlatform) => server.app.services.worker.drain({ platformId: p.platformId });
  const advance = async (p: TestPlatform, seconds: number) =>
    assert.equal((await p.api.post('/sandbox/clock/advance', { seconds })).status, 200, 'clock advanced');
  const objectOf = (got: Received) => got.body.transaction ?? got.body.data;
  const about = (r: Receiver, id: string) => r.received.filter((g) => objectOf(g)?.id === id);

  /** Every delivery verifies with the verifier of docs/webhooks.md and the keys GET /config publishes. */
  async function assertVerified(p: TestPlatform, received: readonly Received[]): Promise<void> {
    const keys = (await p.api.get('/config')).body;
    assert.ok(received.length > 0, 'something was delivered');
    for (const got of received)
      assert.equal(verifyWebhook(got.raw, got.headers, keys), true, `${got.headers[TYPE_HEADER]} verifies`);
  }

  async function executeQuoteTo(p: TestPlatform, tail: string): Promise<string> {
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
    return quote.body.transactionId;
  }

  async function transferOutTo(p: TestPlatform, tail: string): Promise<string> {
    const payer = await fundedCustomer(p, 'USD', 50_000);
    const destination = await externalAccount(p, payer.customerId, 'US_ACCOUNT', tail);
    const res = await p.api.post('/transfer-out', {
      source: { accountId: payer.accountId },
      destination: { accountId: destination },
      amount: 10_000,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.id;
  }

  async function transferIn(p: TestPlatform, tail: string): Promise<string> {
    const { customerId, accountId } = await fundedCustomer(p, 'USD', 0);
    const source = await externalAccount(p, customerId, 'US_ACCOUNT', tail);
    const res = await p.api.post('/transfer-in', {
      source: { accountId: source },
      destination: { accountId },
      amount: 4_200,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.id;
  }

  async function incomingPayment(p: TestPlatform): Promise<string> {
    const c = await customer(p);
    const res = await p.api.post('/sandbox/uma/receive', {
      senderUmaAddress: '$alice@wallet.example.com',
      receiverUmaAddress: c.umaAddress,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 1_234,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.id;
  }

  /** The delivery log's events of one object, oldest first, with their attempts. */
  async function logOf(p: TestPlatform, objectId: string): Promise<any[]> {
    const page = await p.api.get(`/webhook-events?objectId=${encodeURIComponent(objectId)}&limit=100`);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    const events = [];
    for (const e of [...page.body.data].reverse()) events.push((await p.api.get(`/webhook-events/${e.id}`)).body);
    return events;
  }

  it('LEGACY: a failed payment sends one FAILED notification, which carries its refund', async () => {
    const { p, r } = await platformWithReceiver('LEGACY');
    const cases = [
      { id: await executeQuoteTo(p, '004'), statuses: ['PENDING', 'PROCESSING', 'FAILED'], refund: 'COMPLETED' },
      { id: await executeQuoteTo(p, '007'), statuses: ['PENDING', 'PROCESSING', 'FAILED'], refund: 'FAILED' },
      { id: await transferOutTo(p, '004'), statuses: ['PENDING', 'PROCESSING', 'FAILED'], refund: 'COMPLETED' },
      // Completed, then returned by the bank 30 s later (sandbox 005): COMPLETED and FAILED, one each.
      {
        id: await executeQuoteTo(p, '005'),
        statuses: ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'],
        refund: 'COMPLETED',
      },
    ];
    await drain(p);
    await advance(p, 30);
    for (const { id, statuses, refund } of cases) {
      const got = about(r, id);
      assert.deepEqual(
        got.map((g) => `${g.body.type} ${g.body.transaction.status}`),
        statuses.map((s) => `OUTGOING_PAYMENT ${s}`),
        `${id}: one notification per status change, no second FAILED`,
      );
      const failed = got.at(-1)!.body.transaction;
      assert.ok(failed.failureReason, `${id}: the FAILED notification names the failure`);
      assert.equal(failed.refund?.status, refund, `${id}: the FAILED notification carries the refund`);
      assert.equal(failed.refund?.reason, 'TRANSACTION_FAILED', `${id}: and why it was refunded`);
      assert.ok(failed.refund?.reference, `${id}: and its reference`);
      assert.deepEqual(
        got.map((g) => g.headers[TYPE_HEADER]),
        statuses.map((s) => `OUTGOING_PAYMENT.${s}`),
        `${id}: each notification names its fine-grained type`,
      );

      // The refund is still an event of the log (the CURRENT envelope sends it), never sent in this one.
      const log = await logOf(p, id);
      const refundType = `OUTGOING_PAYMENT.REFUND_${refund}`;
      assert.deepEqual(
        log.map((e) => `${e.type} ${e.deliveryState}`),
        [...statuses.map((s) => `OUTGOING_PAYMENT.${s} DELIVERED`), `${refundType} NOT_IN_ENVELOPE`],
        `${id}: the log keeps the refund event, marked as not part of the LEGACY envelope`,
      );
      assert.deepEqual(log.at(-1).attempts, [], `${id}: no attempt was made for the refund event`);
      assert.equal(log.at(-1).data.refund.status, refund, `${id}: the refund event's data is the refunded payment`);
    }
    await assertVerified(p, r.received);
    const notInEnvelope = await p.api.get('/webhook-events?deliveryState=NOT_IN_ENVELOPE&limit=100');
    assert.equal(notInEnvelope.status, 200, 'the log filters on the new state');
    assert.equal(notInEnvelope.body.data.length, cases.length, 'one refund event per failed payment');
  });

  it('redelivering a refund event sends nothing in LEGACY and the REFUND_* event in CURRENT', async () => {
    const { p, r } = await platformWithReceiver('LEGACY');
    const id = await executeQuoteTo(p, '004');
    await drain(p);
    const refundEvent = (await logOf(p, id)).at(-1);
    assert.equal(refundEvent.type, 'OUTGOING_PAYMENT.REFUND_COMPLETED', 'the refund event is last');
    const sentBefore = r.received.length;

    const again = await p.api.post(`/webhook-events/${refundEvent.id}/redeliver`);
    assert.equal(again.status, 202, JSON.stringify(again.body));
    assert.equal(again.body.deliveryState, 'PENDING', 'a fresh run starts');
    await drain(p);
    assert.equal(r.received.length, sentBefore, 'LEGACY: still no second FAILED notification');
    const settled = (await p.api.get(`/webhook-events/${refundEvent.id}`)).body;
    assert.equal(settled.deliveryState, 'NOT_IN_ENVELOPE', 'the redelivery ends in the same state');
    assert.deepEqual(settled.attempts, [], 'no attempt');

    assert.equal((await p.api.patch('/config', { webhookEnvelope: 'CURRENT' })).status, 200, 'envelope changed');
    assert.equal((await p.api.post(`/webhook-events/${refundEvent.id}/redeliver`)).status, 202, 'redelivered');
    await drain(p);
    const sent = r.received.slice(sentBefore);
    assert.equal(sent.length, 1, 'CURRENT: the refund event is sent');
    assert.equal(sent[0]!.body.id, refundEvent.id, 'under its own id');
    assert.equal(sent[0]!.body.type, 'OUTGOING_PAYMENT.REFUND_COMPLETED', 'as its own type');
    assert.equal(sent[0]!.headers[TYPE_HEADER], 'OUTGOING_PAYMENT.REFUND_COMPLETED', 'named by the header');
    assert.equal((await p.api.get(`/webhook-events/${refundEvent.id}`)).body.deliveryState, 'DELIVERED', 'delivered');
    await assertVerified(p, sent);
  });

  for (const envelope of ['LEGACY', 'CURRENT'] as const) {
    it(`every delivery names its event type in a header (${envelope})`, async () => {
      const { p, r } = await platformWithReceiver(envelope);
      const ids = [
        await executeQuoteTo(p, '000'),
        await executeQuoteTo(p, '004'),
        await transferOutTo(p, '004'),
        await transferIn(p, '000'),
        await transferIn(p, '002'),
        await incomingPayment(p),
      ];
      // An event type with no LEGACY form of its own (VERIFICATION.RESOLVE_ERRORS: the customer lacks data).
      const verification = await p.api.post('/verifications', { customerId: (await customer(p)).id });
      assert.equal(verification.body.verificationStatus, 'RESOLVE_ERRORS', JSON.stringify(verification.body));
      await drain(p);
      const test = await p.api.post('/webhooks/test', {});
      assert.equal(test.status, 200, JSON.stringify(test.body));

      assert.ok(r.received.length > 15, `the flows were delivered (${r.received.length})`);
      for (const got of r.received) {
        const header = got.headers[TYPE_HEADER];
        assert.equal(typeof header, 'string', `${got.body.type} carries ${TYPE_HEADER}`);
        const logged = await p.api.get(`/webhook-events/${got.body.id}`);
        // The TEST webhook of POST /webhooks/test is not an event of the log.
        const type = logged.status === 200 ? logged.body.type : 'TEST';
        assert.equal(header, type, `${got.body.id}: the header is the event's type`);
        if (envelope === 'CURRENT') assert.equal(got.body.type, header, 'CURRENT: the body says the same');
        else
          assert.ok(
            got.body.type === header || String(header).startsWith(`${got.body.type}.`),
            `LEGACY: ${header} is ${got.body.type} or refines it`,
          );
      }
      const headers = new Set(r.received.map((g) => g.headers[TYPE_HEADER]));
      for (const type of [
        'TEST',
        'VERIFICATION.RESOLVE_ERRORS',
        'INCOMING_PAYMENT.COMPLETED',
        'OUTGOING_PAYMENT.FAILED',
      ])
        assert.ok(headers.has(type), `a ${type} delivery was among them`);
      assert.equal(
        headers.has('OUTGOING_PAYMENT.REFUND_COMPLETED'),
        envelope === 'CURRENT',
        'refund events are sent in CURRENT only',
      );
      if (envelope === 'LEGACY') {
        for (const id of ids) {
          const statuses = about(r, id).map((g) => g.body.transaction.status);
          assert.equal(new Set(statuses).size, statuses.length, `${id}: one notification per status (${statuses})`);
        }
      }
      await assertVerified(p, r.received);
    });
  }
});
