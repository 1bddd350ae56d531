import { after, before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { startServer, type TestPlatform, type TestServer } from '../helpers/harness.ts';
import { enqueueJob } from '../../src/jobs/queue.ts';
import { loadScope } from '../../src/platforms.ts';
import { scopeNowMs } from '../../src/context.ts';

// Job kinds that exist only in this test, added to the registry's types the way a module would.
declare module '../../src/jobs/kinds.ts' {
  interface JobPayloads {
    'test.record': { id: string };
    'test.flaky': { id: string };
  }
}

describe('durable jobs and the sandbox clock', () => {
  let server: TestServer;
  let p: TestPlatform;
  let other: TestPlatform;
  const ran: Array<{ id: string; at: number }> = [];
  let failuresLeft = 2;
  before(async () => {
    // A slow poll, so only the clock (not the background worker) can make delayed jobs run in this test.
    server = await startServer({ JOB_POLL_MS: '60000' });
    p = await server.platform('clock');
    other = await server.platform('bystander');
    const { worker, ctx } = server.app.services;
    worker.register('test.record', async ({ id }, _job, scope) => {
      ran.push({ id, at: scopeNowMs(ctx, scope) });
    });
    worker.register('test.flaky', async () => {
      if (failuresLeft-- > 0) throw new Error('not yet');
    });
  });
  after(() => server.close());

  async function enqueue(platformId: string, kind: 'test.record' | 'test.flaky', id: string, delayMs: number) {
    const { store, clock } = server.app.services.ctx;
    await store.tx((trx) =>
      enqueueJob(trx, { platformId, environment: 'sandbox' }, kind, { id }, clock.nowMs(), delayMs),
    );
  }

  it("runs a 6-minute job only when this platform's clock reaches it", async () => {
    await enqueue(p.platformId, 'test.record', 'six-minutes', 6 * 60_000);
    await enqueue(other.platformId, 'test.record', 'other-platform', 60_000);
    const previous = await p.api.get('/sandbox/clock');
    assert.equal(previous.body.offsetMs, 0);

    const short = await p.api.post('/sandbox/clock/advance', { seconds: 300 });
    assert.equal(short.status, 200);
    assert.equal(short.body.offsetMs, 300_000);
    assert.equal(ran.length, 0, 'five minutes is not six');

    await p.api.post('/sandbox/clock/advance', { seconds: 61 });
    assert.deepEqual(
      ran.map((r) => r.id),
      ['six-minutes'],
      "the other platform's job is not touched",
    );
    const scope = await loadScope(server.app.services.ctx, p.platformId, 'sandbox');
    assert.ok(ran[0]!.at - Date.parse(previous.body.now) >= 361_000, 'the job saw the advanced time');
    assert.equal(scope.clockOffsetMs, 361_000);

    // The sandbox clock moves the platform's createdAt stamps too.
    const customer = await p.api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'later' });
    assert.ok(
      Date.parse(customer.body.createdAt) - Date.now() >= 360_000,
      'Date.parse(customer.body.createdAt) - Date.now() >= 360_000',
    );
  });

  it('retries a failing job with backoff until it succeeds', async () => {
    await enqueue(p.platformId, 'test.flaky', 'flaky', 0);
    await server.app.services.worker.drain({ platformId: p.platformId });
    const job = await server.app.store.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', 'test.flaky')
      .executeTakeFirstOrThrow();
    assert.equal(job.status, 'pending');
    assert.equal(job.last_error, 'not yet');
    await p.api.post('/sandbox/clock/advance', { seconds: 1 });
    await p.api.post('/sandbox/clock/advance', { seconds: 2 });
    const done = await server.app.store.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', 'test.flaky')
      .executeTakeFirstOrThrow();
    assert.equal(done.status, 'done');
    assert.equal(done.attempts, 3n);
  });

  it('refuses bad steps and production credentials', async () => {
    for (const body of [{}, { seconds: 0 }, { seconds: 1, milliseconds: 1 }, { milliseconds: 31 * 24 * 3600_000 }]) {
      const res = await p.api.post('/sandbox/clock/advance', body);
      assert.equal(res.status, 400, JSON.stringify(body));
    }
    assert.equal((await p.prod.post('/sandbox/clock/advance', { seconds: 1 })).status, 403);
    assert.equal((await p.prod.get('/sandbox/clock')).status, 403);
  });
});
