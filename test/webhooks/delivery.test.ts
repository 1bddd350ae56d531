import { after, before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import {
  client,
  createTestDatabase,
  engine,
  startServer,
  type TestPlatform,
  type TestServer,
} from '../helpers/harness.ts';
import { claimJobs, renewLease } from '../../src/jobs/queue.ts';
import { answer, loadDocsVerifier, record, startReceiver, type Receiver, type VerifyWebhook } from './helpers.ts';
import { waitFor } from '../helpers/wait.ts';

// Jitter fixed at one half: each retry waits exactly half its cap (5 s, 10 s, 20 s, 40 s, ...).
const HALF = () => 0.5;
// Only drain() and the sandbox clock run jobs here, so every attempt happens exactly when a test says. The
// time-out is long enough that a receiver answering at once never misses it on a loaded machine (300 ms did:
// an extra failed attempt, then a retry the test did not expect), and short enough to wait for a hung one.
const ENV = { JOB_POLL_MS: '60000', WEBHOOK_TIMEOUT_MS: '1000' };

describe('webhook delivery', () => {
  let server: TestServer;
  let verifyWebhook: VerifyWebhook;
  const receivers: Receiver[] = [];

  before(async () => {
    server = await startServer(ENV, { random: HALF });
    verifyWebhook = await loadDocsVerifier();
  });
  after(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await server.close();
  });

  async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  }

  /** A platform whose sandbox sends to `r`; the TEST that the new endpoint triggers is consumed. */
  async function platformFor(r: Receiver, envelope?: 'LEGACY' | 'CURRENT'): Promise<TestPlatform> {
    const p = await server.platform();
    const patched = await p.api.patch('/config', {
      webhookEndpoint: r.url,
      ...(envelope ? { webhookEnvelope: envelope } : {}),
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    await drain(p);
    assert.equal(r.received.at(-1)?.body.type, 'TEST');
    r.received.length = 0;
    return p;
  }

  const drain = (p: TestPlatform) => server.app.services.worker.drain({ platformId: p.platformId });
  const advance = async (p: TestPlatform, seconds: number) =>
    assert.equal((await p.api.post('/sandbox/clock/advance', { seconds })).status, 200);
  const event = async (p: TestPlatform, id: string) => (await p.api.get(`/webhook-events/${id}`)).body;

  it("delivers each object's events in order, signed so that the keys from GET /config verify them", async () => {
    // The first delivery of object A fails once; A's second event must wait for it.
    let failedOnce = false;
    const r = await receiver((_n, got, res) => {
      if (got.body.transaction?.id === 'A' && got.body.transaction.status === 'PENDING' && !failedOnce) {
        failedOnce = true;
        res.writeHead(503).end('busy');
        return;
      }
      res.writeHead(200).end();
    });
    const p = await platformFor(r);
    const a1 = await record(server, p.platformId, 'OUTGOING_PAYMENT.PENDING', 'A', { id: 'A', status: 'PENDING' });
    const b1 = await record(server, p.platformId, 'OUTGOING_PAYMENT.PENDING', 'B', { id: 'B', status: 'PENDING' });
    const a2 = await record(server, p.platformId, 'OUTGOING_PAYMENT.PROCESSING', 'A', {
      id: 'A',
      status: 'PROCESSING',
    });
    const b2 = await record(server, p.platformId, 'OUTGOING_PAYMENT.COMPLETED', 'B', { id: 'B', status: 'COMPLETED' });
    await drain(p);
    // Different objects' deliveries run side by side, so only each object's own order is promised.
    const of = (object: string) => r.received.filter((x) => x.body.transaction?.id === object).map((x) => x.body.id);
    assert.deepEqual(of('A'), [a1], 'A2 waits behind the failed A1');
    assert.deepEqual(of('B'), [b1, b2], 'B is not held up, and in order');
    await advance(p, 5);
    await advance(p, 1);
    assert.deepEqual(of('A'), [a1, a1, a2], 'A1 again, then A2');
    assert.deepEqual(
      r.received.slice(3).map((x) => x.body.id),
      [a1, a2],
    );
    const a2event = await event(p, a2);
    assert.equal(a2event.deliveryState, 'DELIVERED');
    assert.equal(a2event.attempts.length, 1, 'waiting is not an attempt');

    const keys = (await p.api.get('/config')).body;
    assert.match(keys.webhookPublicKey, /^-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE/);
    for (const got of r.received) {
      assert.equal(got.headers['content-type'], 'application/json');
      assert.equal(got.headers['webhook-id'], got.body.id);
      assert.ok(verifyWebhook(got.raw, got.headers, keys), 'both signatures verify');
      const changed = Buffer.from(got.raw);
      changed[changed.length - 2]! ^= 1;
      assert.ok(!verifyWebhook(changed, got.headers, keys), 'a changed byte fails');
    }
    // LEGACY by default.
    assert.deepEqual(r.received.at(-1)!.body, {
      id: a2,
      type: 'OUTGOING_PAYMENT',
      timestamp: r.received.at(-1)!.body.timestamp,
      transaction: { id: 'A', status: 'PROCESSING' },
    });
    // Another platform's key does not verify this platform's deliveries.
    const other = (await (await server.platform()).api.get('/config')).body;
    assert.ok(
      !verifyWebhook(r.received[0]!.raw, r.received[0]!.headers, other),
      '!verifyWebhook(r.received[0]!.raw, r.received[0]!.headers, other)',
    );
  });

  it('sends the CURRENT envelope when the platform asks for it', async () => {
    const r = await receiver();
    const p = await platformFor(r, 'CURRENT');
    const id = await record(server, p.platformId, 'CUSTOMER.KYC_APPROVED', 'Customer:1', {
      id: 'Customer:1',
      kycStatus: 'APPROVED',
    });
    await drain(p);
    const body = r.received[0]!.body;
    assert.deepEqual(body, {
      id,
      type: 'CUSTOMER.KYC_APPROVED',
      timestamp: body.timestamp,
      data: { id: 'Customer:1', kycStatus: 'APPROVED' },
    });
    const scopeNow = Date.parse((await p.api.get('/sandbox/clock')).body.now);
    assert.ok(Math.abs(Date.parse(body.timestamp) - scopeNow) < 5000, 'timestamp is the send time');
  });

  it('retries a failing receiver exactly when the backoff says, with the same id, until it answers 2xx', async () => {
    const r = await receiver((n, _got, res) => res.writeHead(n < 4 ? 500 : 200).end(n < 4 ? 'down' : 'ok'));
    const p = await platformFor(r);
    const id = await record(server, p.platformId, 'OUTGOING_PAYMENT.COMPLETED', 'Transaction:retry', {
      id: 'Transaction:retry',
    });
    await drain(p);
    assert.equal(r.received.length, 1);
    // With jitter one half the waits are 5, 10, 20 and 40 seconds.
    for (const [wait, expected] of [
      [5, 2],
      [10, 3],
      [20, 4],
      [40, 5],
    ] as const) {
      await advance(p, wait - 1);
      assert.equal(r.received.length, expected - 1, `not before ${wait} s`);
      await advance(p, 1);
      assert.equal(r.received.length, expected, `at ${wait} s`);
    }
    await advance(p, 3600);
    assert.equal(r.received.length, 5, 'acknowledged: no more attempts');
    assert.ok(
      r.received.every((x) => x.body.id === id),
      'r.received.every((x) => x.body.id === id)',
    );
    const e = await event(p, id);
    assert.equal(e.deliveryState, 'DELIVERED');
    assert.deepEqual(
      e.attempts.map((a: any) => a.responseStatus),
      [500, 500, 500, 500, 200],
    );
    assert.deepEqual(
      e.attempts.map((a: any) => a.attempt),
      [1, 2, 3, 4, 5],
    );
    const gaps = e.attempts
      .slice(1)
      .map((a: any, i: number) => Date.parse(a.startedAt) - Date.parse(e.attempts[i].startedAt));
    gaps.forEach((gap: number, i: number) =>
      assert.ok(Math.abs(gap - [5000, 10000, 20000, 40000][i]!) < 1000, `gap ${i}: ${gap}`),
    );
    assert.equal(e.attempts[0].responseBody, 'down');
  });

  it('does not retry after 409, nor TEST, nor INCOMING_PAYMENT.PENDING', async () => {
    const r = await receiver((_n, got, res) => res.writeHead(got.body.type === 'OUTGOING_PAYMENT' ? 409 : 500).end());
    const p = await platformFor(r);
    const dup = await record(server, p.platformId, 'OUTGOING_PAYMENT.COMPLETED', 'Transaction:dup', {});
    const incoming = await record(server, p.platformId, 'INCOMING_PAYMENT.PENDING', 'Transaction:in', {});
    await drain(p);
    const test = (await p.api.patch('/config', { webhookEndpoint: `${r.url}?second` })).body;
    assert.ok(test.id, 'test.id');
    await drain(p);
    await advance(p, 7200);
    assert.equal(r.received.length, 3);
    assert.equal((await event(p, dup)).deliveryState, 'DELIVERED', '409 is the receiver saying it has it');
    assert.equal((await event(p, incoming)).deliveryState, 'FAILED');
    const tests = (await p.api.get('/webhook-events?type=TEST')).body.data;
    assert.equal(tests[0].deliveryState, 'FAILED');
    assert.equal((await event(p, tests[0].id)).attempts.length, 1);
  });

  it('follows no redirect, times out a slow receiver, keeps 1 KB of an answer', async () => {
    const target = await receiver();
    const redirecting = await receiver(answer(302, '', { location: target.url }));
    const p = await platformFor(redirecting);
    const moved = await record(server, p.platformId, 'OUTGOING_PAYMENT.PENDING', 'Transaction:r', {});
    await drain(p);
    assert.equal(target.received.length, 0, 'the redirect is not followed');
    const e = await event(p, moved);
    assert.equal(e.deliveryState, 'PENDING', 'a 3xx is a failed attempt, retried later');
    assert.equal(e.attempts[0].responseStatus, 302);

    const slow = await receiver(() => undefined);
    const q = await platformFor(await receiver());
    await q.api.patch('/config', { webhookEndpoint: slow.url });
    await drain(q); // the TEST to the slow endpoint times out
    const late = await record(server, q.platformId, 'OUTGOING_PAYMENT.PENDING', 'Transaction:slow', {});
    // The attempt's own record says the time-out ended it (a wall-clock bound here would be a flake).
    await drain(q);
    const timedOut = (await event(q, late)).attempts[0];
    assert.equal(timedOut.responseStatus, null);
    assert.match(timedOut.error, /timed out after 1000 ms/);
    assert.ok(timedOut.latencyMs >= 950, 'timedOut.latencyMs >= 950');

    const chatty = await receiver(answer(500, 'é'.repeat(3000)));
    const c = await platformFor(chatty);
    const big = await record(server, c.platformId, 'OUTGOING_PAYMENT.PENDING', 'Transaction:big', {});
    await drain(c);
    const kept = (await event(c, big)).attempts[0].responseBody as string;
    assert.ok(
      Buffer.byteLength(kept) <= 1024 + 3 && kept.length <= 1024 && kept.startsWith('éé'),
      `kept ${kept.length}`,
    );
  });

  it('marks events NO_ENDPOINT when there is no endpoint, and reports an endpoint that fails for 7 days', async () => {
    const p = await server.platform();
    const none = await record(server, p.platformId, 'OUTGOING_PAYMENT.PENDING', 'Transaction:none', {});
    await drain(p);
    const e = await event(p, none);
    assert.equal(e.deliveryState, 'NO_ENDPOINT');
    assert.equal(e.attempts.length, 0);

    const r = await receiver(answer(500));
    const q = await platformFor(r);
    const doomed = await record(server, q.platformId, 'OUTGOING_PAYMENT.PENDING', 'Transaction:doomed', {});
    await drain(q);
    await advance(q, 8 * 24 * 3600);
    assert.equal((await event(q, doomed)).deliveryState, 'FAILED');
    const failed = (await q.api.get('/webhook-events?deliveryState=FAILED')).body;
    assert.deepEqual(
      failed.data.map((x: any) => x.type),
      ['OUTGOING_PAYMENT.PENDING', 'TEST'],
      'the TEST to this endpoint failed too (once, not retried)',
    );
    assert.equal(failed.data[0].id, doomed);
    const config = (await q.api.get('/config')).body;
    assert.ok(config.webhookEndpointFailingSince, 'the failing endpoint is reported');

    // The next success clears the report.
    r.respond = answer(200);
    await record(server, q.platformId, 'OUTGOING_PAYMENT.PENDING', 'Transaction:fine', {});
    await drain(q);
    assert.equal((await q.api.get('/config')).body.webhookEndpointFailingSince, null);
  });
});

describe('webhook delivery across restarts and processes', () => {
  it('loses nothing when the server restarts in the middle of retries', async () => {
    const database = await createTestDatabase();
    const r = await startReceiver((n, _g, res) => res.writeHead(n < 2 ? 500 : 200).end());
    try {
      const first = await startServer(ENV, { random: HALF, database });
      const p = await first.platform();
      await p.api.patch('/config', { webhookEndpoint: r.url });
      const id = await record(first, p.platformId, 'OUTGOING_PAYMENT.PENDING', 'Transaction:restart', {});
      await first.app.services.worker.drain({ platformId: p.platformId }); // TEST fails, event fails once
      const keys = (await p.api.get('/config')).body;
      await first.close();

      const second = await startServer(ENV, { random: HALF, database });
      const api = client(second.baseUrl, p.sandbox);
      assert.equal((await api.post('/sandbox/clock/advance', { seconds: 5 })).status, 200);
      await second.app.services.worker.drain({ platformId: p.platformId });
      const deliveries = r.received.filter((x) => x.body.id === id);
      assert.equal(deliveries.length, 2);
      assert.equal((await api.get(`/webhook-events/${id}`)).body.deliveryState, 'DELIVERED');
      assert.deepEqual(
        (await api.get('/config')).body.webhookPublicKey,
        keys.webhookPublicKey,
        'the keys survive the restart',
      );
      const verify = await loadDocsVerifier();
      assert.ok(
        verify(deliveries[1]!.raw, deliveries[1]!.headers, keys),
        'verify(deliveries[1]!.raw, deliveries[1]!.headers, keys)',
      );
      await advance30Min(api);
      assert.equal(r.received.filter((x) => x.body.id === id).length, 2, 'delivered once, not again');
      await second.close();
    } finally {
      await r.close();
      await database.drop();
    }
  });

  it('two servers on one PostgreSQL database make each attempt once', {
    skip: engine === 'sqlite' ? 'SQLite is one server process by design; several processes need PostgreSQL' : false,
  }, async () => {
    const database = await createTestDatabase();
    const r = await startReceiver((_n, _g, res) => setTimeout(() => res.writeHead(200).end(), 5));
    const env = { JOB_POLL_MS: '10', WEBHOOK_TIMEOUT_MS: '2000' };
    try {
      const a = await startServer(env, { database });
      const b = await startServer(env, { database });
      const p = await a.platform();
      await p.api.patch('/config', { webhookEndpoint: r.url });
      const ids: string[] = [];
      for (let i = 0; i < 40; i++)
        ids.push(await record(i % 2 ? a : b, p.platformId, 'OUTGOING_PAYMENT.PENDING', `Transaction:${i % 7}`, { i }));
      await waitFor(() => new Set(r.received.map((x) => x.body.id)).size >= 41, 'all 41 deliveries to arrive');
      await new Promise((res) => setTimeout(res, 300));
      const counts = new Map<string, number>();
      for (const x of r.received) counts.set(x.body.id, (counts.get(x.body.id) ?? 0) + 1);
      assert.equal(counts.size, 41, 'every event and the TEST arrived');
      assert.ok(
        [...counts.values()].every((n) => n === 1),
        'none twice',
      );
      const attempts = await a.app.store.db
        .selectFrom('webhook_attempts')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(attempts.n), 41);
      await b.close();
      await a.close();
    } finally {
      await r.close();
      await database.drop();
    }
  });
});

async function advance30Min(api: { post: (p: string, b: unknown) => Promise<{ status: number }> }): Promise<void> {
  assert.equal((await api.post('/sandbox/clock/advance', { seconds: 1800 })).status, 200);
}

describe('leases over a delivery', () => {
  it('a job re-claimed by another process after its lease ran out is not sent by the first', async () => {
    // No background worker: this test plays both processes, and a worker claiming first would race it.
    const server = await startServer({ ...ENV, RUN_WORKERS: 'false' });
    const r = await startReceiver();
    try {
      const p = await server.platform();
      const { store } = server.app;
      await store.db
        .updateTable('platform_configs')
        .set({ webhook_endpoint: r.url })
        .where('platform_id', '=', p.platformId)
        .execute();
      await record(server, p.platformId, 'OUTGOING_PAYMENT.PENDING', 'Transaction:lease', {});
      const now = Date.now();
      const [mine] = await claimJobs(store, now, 10, 10, { platformId: p.platformId });
      assert.ok(mine, 'the queued delivery is claimed');
      // Our lease runs out; another process claims the job with a lease of its own.
      const [theirs] = await claimJobs(store, now + 20, 60_000, 10, { platformId: p.platformId });
      assert.equal(theirs?.id, mine.id);
      assert.equal(await renewLease(store, { ...mine }, now + 30, 60_000), false, 'no longer ours');
      assert.equal(await renewLease(store, theirs, now + 30, 60_000), true);
    } finally {
      await r.close();
      await server.close();
    }
  });
});
