import { after, before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { client, startServer, type TestPlatform, type TestServer } from '../helpers/harness.ts';

describe('metrics', () => {
  let server: TestServer;
  let p: TestPlatform;
  before(async () => {
    server = await startServer({ RUN_WORKERS: 'false' });
    p = await server.platform();
  });
  after(() => server.close());

  it('counts requests by route pattern and status, jobs by outcome, and reads the queue at scrape time', async () => {
    const created = await p.api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'm' });
    await p.api.get(`/customers/${created.body.id}`);
    await p.api.get('/customers/Customer:00000000-0000-7000-8000-000000000000');
    const quote = await p.api.post('/quotes', {}); // 400: counted too
    assert.equal(quote.status, 400);

    const previous = await client(server.baseUrl).get('/metrics');
    assert.equal(previous.status, 200);
    const text = previous.body as string;
    assert.match(
      text,
      /payouts_http_requests_total\{method="GET",route="\/2025-10-13\/customers\/:customerId",status="200"\} 1/,
    );
    assert.match(
      text,
      /payouts_http_requests_total\{method="GET",route="\/2025-10-13\/customers\/:customerId",status="404"\} 1/,
    );
    assert.match(text, /payouts_http_requests_total\{method="POST",route="\/2025-10-13\/quotes",status="400"\} 1/);
    assert.match(
      text,
      /payouts_http_request_duration_seconds_bucket\{le="\+Inf",method="POST",route="\/2025-10-13\/customers"\} 1/,
    );
    assert.doesNotMatch(text, /Customer:0000/, 'ids never become labels');
    assert.match(text, /payouts_process_resident_memory_bytes/);

    // A quote queues its expiry: one pending job, visible to the scrape; running it counts as done.
    const payer = (await p.api.get('/platform/internal-accounts?currency=USD')).body.data[0];
    await p.api.post(`/sandbox/internal-accounts/${payer.id}/fund`, { amount: 10_000 });
    await p.api.post('/quotes', {
      source: { sourceType: 'ACCOUNT', accountId: payer.id },
      destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$success.eur@sandbox.uma.money' },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 1_000,
    });
    assert.match((await client(server.baseUrl).get('/metrics')).body, /payouts_jobs_waiting\{status="pending"\} 1/);
    await p.api.post('/sandbox/clock/advance', { seconds: 600 });
    const afterText = (await client(server.baseUrl).get('/metrics')).body as string;
    assert.match(afterText, /payouts_jobs_total\{kind="quote.expire",outcome="done"\} 1/);
    assert.doesNotMatch(afterText, /payouts_jobs_waiting\{status="pending"\} [1-9]/);
  });
});
