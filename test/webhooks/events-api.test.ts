import { after, before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { startServer, type TestPlatform, type TestServer } from '../helpers/harness.ts';
import { answer, loadDocsVerifier, record, startReceiver, type Receiver } from './helpers.ts';
import { waitFor } from '../helpers/wait.ts';

describe('delivery log, redelivery and the test webhook', () => {
  let server: TestServer;
  let p: TestPlatform;
  let r: Receiver;
  const closeLater: Receiver[] = [];
  before(async () => {
    // Retries wait the longest jitter (about 10 s of wall time) so that none fires on its own while a
    // slow machine runs a test; the tests move the sandbox clock when they want one. A POST to a receiver that
    // answers at once must not time out on a loaded machine (with 300 ms some did, and their events stayed
    // PENDING for a retry): only the hung receiver of the last test waits this long.
    server = await startServer({ JOB_POLL_MS: '60000', WEBHOOK_TIMEOUT_MS: '2000' }, { random: () => 0.999 });
    p = await server.platform();
    r = await startReceiver();
    closeLater.push(r);
  });
  after(async () => {
    await Promise.all(closeLater.map((x) => x.close()));
    await server.close();
  });
  const drain = (q: TestPlatform = p) => server.app.services.worker.drain({ platformId: q.platformId });

  it('lists events newest first with filters and pages, gets one with its attempts, scoped to the caller', async () => {
    await p.api.patch('/config', { webhookEndpoint: r.url });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(
        await record(server, p.platformId, i % 2 ? 'OUTGOING_PAYMENT.PENDING' : 'INVITATION.CLAIMED', `Obj:${i % 2}`, {
          i,
        }),
      );
    await drain();

    const page1 = await p.api.get('/webhook-events?limit=3');
    assert.equal(page1.status, 200);
    assert.equal(page1.body.totalCount, 6, 'five events and the TEST');
    assert.deepEqual(
      page1.body.data.map((e: any) => e.id),
      ids.slice(2).reverse(),
    );
    assert.ok(page1.body.hasMore, 'page1.body.hasMore');
    const page2 = await p.api.get(`/webhook-events?limit=3&cursor=${page1.body.nextCursor}`);
    assert.equal(page2.body.data.length, 3);
    assert.equal(page2.body.hasMore, false);
    assert.equal(page2.body.nextCursor, undefined);

    const outgoing = await p.api.get(
      '/webhook-events?type=OUTGOING_PAYMENT.PENDING&objectId=Obj:1&deliveryState=DELIVERED',
    );
    assert.deepEqual(
      outgoing.body.data.map((e: any) => e.id),
      [ids[3], ids[1]],
    );
    assert.equal((await p.api.get('/webhook-events?deliveryState=FAILED')).body.totalCount, 0);
    assert.equal((await p.api.get('/webhook-events?deliveryState=LOST')).status, 400);
    assert.equal((await p.api.get('/webhook-events?cursor=garbage')).status, 400);

    const one = await p.api.get(`/webhook-events/${ids[0]}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.type, 'INVITATION.CLAIMED');
    assert.equal(one.body.objectId, 'Obj:0');
    assert.deepEqual(one.body.data, { i: 0 });
    assert.equal(one.body.deliveryState, 'DELIVERED');
    assert.equal(one.body.attempts.length, 1);
    const attempt = one.body.attempts[0];
    assert.equal(attempt.run, 1);
    assert.equal(attempt.attempt, 1);
    assert.equal(attempt.url, r.url);
    assert.equal(attempt.responseStatus, 200);
    assert.equal(attempt.responseBody, 'ok');
    assert.equal(attempt.error, null);

    assert.equal((await p.prod.get(`/webhook-events/${ids[0]}`)).status, 404, 'another environment does not see it');
    const other = await server.platform();
    assert.equal((await other.api.get(`/webhook-events/${ids[0]}`)).status, 404, 'another platform does not see it');
    assert.equal((await other.api.post(`/webhook-events/${ids[0]}/redeliver`)).status, 404);
    assert.equal((await other.api.get('/webhook-events')).body.totalCount, 0);
  });

  it('redelivers a delivered event with the same id, as a new run', async () => {
    const id = await record(server, p.platformId, 'OUTGOING_PAYMENT.COMPLETED', 'Transaction:again', {
      status: 'COMPLETED',
    });
    await drain();
    const previous = r.received.length;
    const res = await p.api.post(`/webhook-events/${id}/redeliver`);
    assert.equal(res.status, 202);
    assert.equal(res.body.id, id);
    assert.equal(res.body.deliveryState, 'PENDING');
    // Redelivery kicks the background worker, so either it or this drain makes the attempt.
    await drain();
    await waitFor(
      async () => (await p.api.get(`/webhook-events/${id}`)).body.deliveryState === 'DELIVERED',
      'the redelivery',
    );
    assert.equal(r.received.length, previous + 1);
    assert.equal(r.received.at(-1)!.body.id, id, 'the receiver can dedupe on the id');
    const e = (await p.api.get(`/webhook-events/${id}`)).body;
    assert.equal(e.deliveryState, 'DELIVERED');
    assert.deepEqual(
      e.attempts.map((a: any) => [a.run, a.attempt]),
      [
        [1, 1],
        [2, 1],
      ],
    );
  });

  it('redelivering a failing event drops the retries of the earlier run', async () => {
    const q = await server.platform();
    const failing = await startReceiver(answer(500));
    closeLater.push(failing);
    await q.api.patch('/config', { webhookEndpoint: failing.url });
    const id = await record(server, q.platformId, 'OUTGOING_PAYMENT.PENDING', 'Transaction:f', {});
    await drain(q);
    const count = failing.received.length;
    assert.equal((await q.api.post(`/webhook-events/${id}/redeliver`)).status, 202);
    await drain(q);
    await waitFor(async () => (await q.api.get(`/webhook-events/${id}`)).body.attempts.length === 2, 'the new run');
    assert.equal(failing.received.length, count + 1, 'the new run starts at once');
    // Both runs had a retry queued; only the current run's retry may go out.
    await q.api.post('/sandbox/clock/advance', { seconds: 10 });
    const e = (await q.api.get(`/webhook-events/${id}`)).body;
    assert.deepEqual(
      e.attempts.map((a: any) => [a.run, a.attempt]),
      [
        [1, 1],
        [2, 1],
        [2, 2],
      ],
    );
  });

  it('POST /webhooks/test and /sandbox/webhooks/test deliver at once, to the endpoint or to a given url', async () => {
    const verify = await loadDocsVerifier();
    const keys = (await p.api.get('/config')).body;
    for (const path of ['/webhooks/test', '/sandbox/webhooks/test']) {
      const previous = r.received.length;
      const res = await p.api.post(path);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body, { url: r.url, response_status: 200, response_body: 'ok' });
      const got = r.received.at(-1)!;
      assert.equal(r.received.length, previous + 1);
      assert.equal(got.body.type, 'TEST');
      assert.equal(got.body.test, true, 'LEGACY envelope');
      assert.ok(verify(got.raw, got.headers, keys), 'verify(got.raw, got.headers, keys)');
    }
    const elsewhere = await startReceiver(answer(204));
    closeLater.push(elsewhere);
    const res = await p.api.post('/webhooks/test', { url: elsewhere.url });
    assert.deepEqual(res.body, { url: elsewhere.url, response_status: 204, response_body: '' });
    assert.equal(elsewhere.received.length, 1);
    assert.equal((await p.api.get('/webhook-events?type=TEST')).body.totalCount, 1, 'a direct test is not an event');
  });

  it('answers 400 without an endpoint, for a bad url, and when delivery fails', async () => {
    const q = await server.platform();
    const none = await q.api.post('/sandbox/webhooks/test');
    assert.equal(none.status, 400);
    assert.equal(none.body.code, 'WEBHOOK_ENDPOINT_NOT_SET');
    const bad = await q.api.post('/webhooks/test', { url: 'nope' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.details.field, 'url');
    assert.equal(
      (await q.prod.post('/webhooks/test', { url: 'http://127.0.0.1:1/x' })).body.details.field,
      'url',
      'https in production',
    );
    assert.equal((await q.prod.post('/sandbox/webhooks/test', { url: 'https://127.0.0.1:1/x' })).status, 403);

    const refused = await startReceiver();
    const url = refused.url;
    await refused.close();
    const down = await q.api.post('/webhooks/test', { url });
    assert.equal(down.status, 400);
    assert.equal(down.body.code, 'WEBHOOK_DELIVERY_ERROR');
    assert.equal(down.body.details.url, url);

    const rejecting = await startReceiver(answer(401, 'bad signature'));
    closeLater.push(rejecting);
    const no = await q.api.post('/webhooks/test', { url: rejecting.url });
    assert.equal(no.status, 400);
    assert.equal(no.body.code, 'WEBHOOK_DELIVERY_ERROR');
    assert.deepEqual(no.body.details, { url: rejecting.url, response_status: 401, response_body: 'bad signature' });

    const slow = await startReceiver(() => undefined);
    closeLater.push(slow);
    const timedOut = await q.api.post('/webhooks/test', { url: slow.url });
    assert.equal(timedOut.status, 400);
    assert.match(timedOut.body.details.error, /timed out/);
  });
});
