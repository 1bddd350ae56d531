// Sandbox triggers: POST /sandbox/trigger runs the real flow of every webhook event type the sandbox
// records, and the event is then in the delivery log and reaches a real receiver on 127.0.0.1, signed
// (checked with the verifier of docs/webhooks.md). Unknown events and production credentials change nothing.
import assert from 'node:assert/strict';
import { TRIGGER_EVENTS } from '../../src/domain/sandbox-triggers.ts';
import { useServer, type TestPlatform } from '../helpers/harness.ts';
import { after, before, describe, it } from '../helpers/node-test.ts';
import { waitFor } from '../helpers/wait.ts';
import { useEndpoint } from '../incoming/fixtures.ts';
import { loadDocsVerifier, startReceiver, type Receiver, type VerifyWebhook } from '../webhooks/helpers.ts';

/** Payment events: the status the payment has when its trigger answers (PENDING ones move on later). */
const STATUS_AFTER: Record<string, string> = {
  'OUTGOING_PAYMENT.PENDING': 'PENDING',
  'OUTGOING_PAYMENT.PROCESSING': 'PROCESSING',
  'OUTGOING_PAYMENT.COMPLETED': 'COMPLETED',
  'OUTGOING_PAYMENT.FAILED': 'FAILED',
  'OUTGOING_PAYMENT.REFUND_COMPLETED': 'FAILED',
  'OUTGOING_PAYMENT.REFUND_FAILED': 'FAILED',
  'OUTGOING_PAYMENT.EXPIRED': 'EXPIRED',
  'INCOMING_PAYMENT.COMPLETED': 'COMPLETED',
  'INCOMING_PAYMENT.FAILED': 'FAILED',
};

describe('sandbox triggers', () => {
  let p: TestPlatform;
  let receiver: Receiver;
  let verifyWebhook: VerifyWebhook;

  const server = useServer();
  before(async () => {
    verifyWebhook = await loadDocsVerifier();
    receiver = await startReceiver();
    p = await server.platform('triggers');
    // CURRENT: every event type is a delivery of its own (LEGACY folds the refund events into FAILED).
    assert.equal((await p.api.patch('/config', { webhookEnvelope: 'CURRENT' })).status, 200, 'envelope set');
    await useEndpoint(server, p, receiver.url);
  });
  after(async () => {
    await receiver.close();
  });

  for (const [index, event] of TRIGGER_EVENTS.entries()) {
    it(`${event}: recorded, then delivered and signed`, async () => {
      // With and without Idempotency-Key: the flow is one database transaction either way.
      const headers: Record<string, string> = index % 2 === 0 ? { 'Idempotency-Key': `trigger-${event}` } : {};
      const res = await p.api.post('/sandbox/trigger', { event }, headers);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.event, event, 'the answer names the event');
      assert.equal(res.body.clockAdvancedMs > 0, event === 'OUTGOING_PAYMENT.EXPIRED', 'only an expiry moves time');
      const { objects, eventId } = res.body;

      const logged = await p.api.get(`/webhook-events/${eventId}`);
      assert.equal(logged.status, 200, JSON.stringify(logged.body));
      assert.equal(logged.body.type, event, 'the delivery log has the event under its type');
      const listed = await p.api.get(`/webhook-events?type=${encodeURIComponent(event)}&limit=100`);
      assert.ok(
        listed.body.data.some((e: { id: string }) => e.id === eventId),
        'the event list filtered by type shows it',
      );

      if (STATUS_AFTER[event]) {
        const payment = await p.api.get(`/transactions/${objects.transactionId}`);
        assert.equal(payment.status, 200, JSON.stringify(payment.body));
        assert.equal(payment.body.status, STATUS_AFTER[event], `${event}: the payment's status`);
        assert.equal(logged.body.objectId, objects.transactionId, 'the event is about the payment');
        const account = await p.api.get(`/customers/external-accounts/${objects.externalAccountId}`);
        assert.equal(account.status, 200, `the external account exists: ${JSON.stringify(account.body)}`);
      }
      if (objects.customerId)
        assert.equal((await p.api.get(`/customers/${objects.customerId}`)).status, 200, 'the customer exists');
      if (objects.verificationId)
        assert.equal((await p.api.get(`/verifications/${objects.verificationId}`)).status, 200, 'verification exists');
      if (objects.quoteId) assert.equal((await p.api.get(`/quotes/${objects.quoteId}`)).status, 200, 'quote exists');
      if (event.startsWith('CUSTOMER.'))
        assert.equal(
          (await p.api.get(`/customers/${objects.customerId}`)).body.kybStatus,
          event.slice('CUSTOMER.KYB_'.length),
          'the business has the status its event names',
        );

      await waitFor(() => receiver.received.some((got) => got.body?.id === eventId), `${event} ${eventId} delivered`);
      const got = receiver.received.find((g) => g.body.id === eventId)!;
      assert.equal(got.body.type, event, 'CURRENT: the body names the type');
      assert.equal(got.headers['x-webhook-event-type'], event, 'so does the header');
      const keys = (await p.api.get('/config')).body;
      assert.equal(verifyWebhook(got.raw, got.headers, keys), true, `${event}: both signatures verify`);
      await waitFor(
        async () => (await p.api.get(`/webhook-events/${eventId}`)).body.deliveryState === 'DELIVERED',
        `${event} marked DELIVERED`,
      );
    });
  }

  it('replays its answer for the same Idempotency-Key and creates nothing more', async () => {
    const first = await p.api.post('/sandbox/trigger', { event: 'TEST' }, { 'Idempotency-Key': 'trigger-again' });
    const again = await p.api.post('/sandbox/trigger', { event: 'TEST' }, { 'Idempotency-Key': 'trigger-again' });
    assert.equal(again.status, 201, JSON.stringify(again.body));
    assert.deepEqual(again.body, first.body, 'the same answer');
    assert.equal(again.headers.get('idempotent-replayed'), 'true', 'marked as a replay');
    const tests = await p.api.get('/webhook-events?type=TEST&limit=100');
    assert.equal(
      tests.body.data.filter((e: { id: string }) => e.id === first.body.eventId).length,
      1,
      'one event for both calls',
    );
  });

  it('refuses an unknown event naming the field and the accepted names, and writes nothing', async () => {
    const q = await server.platform('triggers-refused');
    const customersBefore = (await q.api.get('/customers?limit=100')).body.data.length;
    for (const body of [{ event: 'OUTGOING_PAYMENT.LOST' }, { event: 'outgoing_payment.failed' }, {}]) {
      const res = await q.api.post('/sandbox/trigger', body, { 'Idempotency-Key': `bad-${JSON.stringify(body)}` });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.details?.field, 'event', `the error names the field: ${JSON.stringify(res.body)}`);
      if (body.event === undefined) continue;
      assert.deepEqual(res.body.details.allowedValues, [...TRIGGER_EVENTS], 'it lists the accepted names');
      for (const name of ['OUTGOING_PAYMENT.FAILED', 'INVITATION.CLAIMED', 'TEST'])
        assert.ok(JSON.stringify(res.body).includes(name), `the error lists ${name}: ${JSON.stringify(res.body)}`);
    }
    assert.equal(
      (await q.api.get('/customers?limit=100')).body.data.length,
      customersBefore,
      'no customer was created',
    );
    assert.equal((await q.api.get('/webhook-events?limit=100')).body.data.length, 0, 'no event was recorded');
  });

  it('refuses production credentials like every sandbox route', async () => {
    const res = await p.prod.post('/sandbox/trigger', { event: 'OUTGOING_PAYMENT.COMPLETED' });
    assert.equal(res.status, 403, JSON.stringify(res.body));
    assert.equal(res.body.code, 'FORBIDDEN', 'the sandbox routes refusal');
    const fund = await p.prod.post('/sandbox/clock/advance', { seconds: 1 });
    assert.equal(fund.status, res.status, 'the same refusal as the sandbox clock');
  });
});
