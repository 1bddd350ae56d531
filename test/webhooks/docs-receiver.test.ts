import { after, before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/harness.ts';
import { loadDocsVerifier, record, startReceiver, type Receiver } from './helpers.ts';

describe('the receiver snippet in docs/webhooks.md', () => {
  let server: TestServer;
  let r: Receiver;
  before(async () => {
    server = await startServer({ JOB_POLL_MS: '60000' });
    r = await startReceiver();
  });
  after(async () => {
    await r.close();
    await server.close();
  });

  it(
    'accepts a real delivery and refuses a changed body, a stale ' + 'timestamp, a forged header or another key',
    async () => {
      const verifyWebhook = await loadDocsVerifier();
      const p = await server.platform();
      await p.api.patch('/config', { webhookEndpoint: r.url });
      await record(server, p.platformId, 'OUTGOING_PAYMENT.COMPLETED', 'Transaction:doc', {
        id: 'Transaction:doc',
        status: 'COMPLETED',
      });
      // In the sandbox the receiver's check still works after the sandbox clock moves: the header is real time.
      await p.api.post('/sandbox/clock/advance', { seconds: 3600 });
      await server.app.services.worker.drain({ platformId: p.platformId });
      const keys = (await p.api.get('/config')).body;
      const got = r.received.find((x) => x.body.type === 'OUTGOING_PAYMENT')!;
      assert.ok(got, 'delivered');
      assert.equal(verifyWebhook(got.raw, got.headers, keys), true);

      const changed = Buffer.from(got.raw.toString('utf8').replace('COMPLETED', 'COMPLETEd'));
      assert.equal(verifyWebhook(changed, got.headers, keys), false);
      const sent = Number(got.headers['webhook-timestamp']);
      assert.equal(verifyWebhook(got.raw, got.headers, keys, sent + 299), true);
      assert.equal(verifyWebhook(got.raw, got.headers, keys, sent + 301), false, 'older than 5 minutes');
      assert.equal(
        verifyWebhook(got.raw, { ...got.headers, 'webhook-timestamp': String(sent + 1) }, keys, sent),
        false,
        'the timestamp is signed',
      );
      assert.equal(
        verifyWebhook(got.raw, { ...got.headers, 'webhook-id': 'Webhook:other' }, keys),
        false,
        'the id is signed',
      );
      assert.equal(verifyWebhook(got.raw, { ...got.headers, 'x-grid-signature': '{"v":"2","s":""}' }, keys), false);
      const other = (await (await server.platform()).api.get('/config')).body;
      assert.equal(verifyWebhook(got.raw, got.headers, other), false);
      assert.equal(
        verifyWebhook(got.raw, got.headers, { ...keys, webhookStandardPublicKey: other.webhookStandardPublicKey }),
        false,
      );
    },
  );
});
