// What an operator reads over real HTTP: the build's version in /healthz and /metrics, and the business
// metrics computed from the database at scrape time — money in flight, the oldest unsettled payment's age,
// webhook delivery failures per endpoint — plus the count of replayed idempotent answers.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { client, useServer } from '../helpers/harness.ts';
import { after, before, describe, it } from '../helpers/node-test.ts';
import { answer, startReceiver, type Receiver } from '../webhooks/helpers.ts';
import { individual } from '../identity/fixtures.ts';

const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

/** The value of one sample of /metrics, or undefined when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = (match[2] ?? '').split(',');
    if (wanted.every((w) => present.includes(w))) return Number(match[3]);
  }
  return undefined;
}

describe('operator metrics', () => {
  let receiver: Receiver;
  // Jobs run only when the test drains them, so a payment stays in flight while it is measured.
  const server = useServer({ RUN_WORKERS: 'false', WEBHOOK_TIMEOUT_MS: '300' });
  before(async () => {
    receiver = await startReceiver(answer(500, 'down'));
  });
  after(async () => {
    await receiver.close();
  });
  const scrape = async () => (await fetch(`${server.baseUrl}/metrics`)).text();

  it('reports the version in /healthz and as payouts_build_info', async () => {
    const health = await fetch(`${server.baseUrl}/healthz`);
    assert.deepEqual(await health.json(), { status: 'ok', version }, '/healthz names the build');
    assert.equal(sample(await scrape(), 'payouts_build_info', { version }), 1, 'the build info gauge');
  });

  it('money in flight and the oldest unsettled payment come from the database at scrape time', async () => {
    const p = await server.platform('metrics');
    const customer = (await p.api.post('/customers', individual('in-flight'))).body;
    const usd = (
      await p.api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}&currency=USD`)
    ).body.data[0];
    assert.equal((await p.api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 10_000 })).status, 200);
    const bank = await p.api.post('/customers/external-accounts', {
      customerId: customer.id,
      currency: 'USD',
      accountInfo: {
        accountType: 'USD_ACCOUNT',
        accountNumber: '123456789',
        routingNumber: '021000021',
        beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada Lovelace' },
      },
    });
    assert.equal(bank.status, 201, JSON.stringify(bank.body));
    const inFlight =
      sample(await scrape(), 'payouts_money_in_flight', { environment: 'sandbox', currency: 'USD' }) ?? 0;
    for (const amount of [2_500, 1_000]) {
      const sent = await p.api.post('/transfer-out', {
        source: { accountId: usd.id },
        destination: { accountId: bank.body.id },
        amount,
      });
      assert.equal(sent.status, 201, JSON.stringify(sent.body));
    }
    const text = await scrape();
    assert.equal(
      sample(text, 'payouts_money_in_flight', { environment: 'sandbox', currency: 'USD' }),
      inFlight + 3_500,
      'both payouts are in flight',
    );
    const age = sample(text, 'payouts_oldest_unsettled_payment_age_seconds', { environment: 'sandbox' });
    assert.ok(age !== undefined && age >= 0 && age < 600, `an age in seconds: ${age}`);
    assert.equal(sample(text, 'payouts_oldest_unsettled_payment_age_seconds', { environment: 'production' }), 0);

    await server.app.services.worker.drain({ platformId: p.platformId });
    const settled = await scrape();
    assert.equal(
      sample(settled, 'payouts_money_in_flight', { environment: 'sandbox', currency: 'USD' }) ?? 0,
      inFlight,
      'settled payouts are no longer in flight',
    );
  });

  it('counts webhook delivery failures per endpoint, without the query string', async () => {
    const p = await server.platform('hooks');
    const patched = await p.api.patch('/config', { webhookEndpoint: `${receiver.url}?token=s3cret` });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    await server.app.services.worker.drain({ platformId: p.platformId });
    assert.ok(receiver.received.length >= 1, 'the receiver was called and answered 500');
    const text = await scrape();
    assert.equal(
      sample(text, 'payouts_webhook_delivery_failures_total', { endpoint: receiver.url }),
      receiver.received.length,
      'one failure per attempt that got a 500',
    );
    assert.ok(!text.includes('s3cret'), 'no query string in a label');
  });

  it('counts replayed idempotent answers', async () => {
    const p = await server.platform('replays');
    const api = client(server.baseUrl, p.sandbox);
    const body = individual('replayed');
    const headers = { 'Idempotency-Key': 'metrics-replay-1' };
    const replays = sample(await scrape(), 'payouts_idempotent_replays_total', { route: '/2025-10-13/customers' }) ?? 0;
    const first = await api.post('/customers', body, headers);
    const second = await api.post('/customers', body, headers);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(second.headers.get('idempotent-replayed'), 'true', 'the second is a replay');
    assert.equal(
      sample(await scrape(), 'payouts_idempotent_replays_total', { route: '/2025-10-13/customers' }),
      replays + 1,
    );
  });
});
