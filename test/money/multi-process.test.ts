import { after, before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { client, engine, useServer, type TestPlatform } from '../helpers/harness.ts';
import { spawnServer, type ServerProcess } from '../helpers/processes.ts';
import { waitFor } from '../helpers/wait.ts';
import { balance, eventTypes, externalAccount, fundedCustomer } from './fixtures.ts';

// Several server processes share one database only on PostgreSQL (SQLite is one process per file).
describe('two server processes on one PostgreSQL database', {
  skip: engine !== 'postgres' ? 'needs PostgreSQL (TEST_DATABASE_URL)' : false,
}, () => {
  let p: TestPlatform;
  const processes: ServerProcess[] = [];
  // Registered first, so it runs first: the other processes stop before the server's close drops the database.
  after(async () => {
    await Promise.all(processes.map((s) => s.stop()));
  });
  const server = useServer({ RUN_WORKERS: 'false' });
  before(async () => {
    p = await server.platform();
    const env = {
      DATABASE_URL: server.config.databaseUrl!,
      SECRET_KEY: server.config.secretKey.toString('hex'),
      DATA_DIR: server.config.dataDir,
      JOB_POLL_MS: '20',
    };
    processes.push(await spawnServer(env), await spawnServer(env));
  });

  it('100 transfer-outs spread over both against a balance for 60: exactly 60, each processed once', async () => {
    const { customerId, accountId } = await fundedCustomer(p, 'USD', 6_000);
    const destination = await externalAccount(p, customerId, 'USD_ACCOUNT', '000');
    const apis = processes.map((s) => client(s.baseUrl, p.sandbox));
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        apis[i % 2]!.post('/transfer-out', {
          source: { accountId },
          destination: { accountId: destination },
          amount: 100,
        }),
      ),
    );
    assert.equal(results.filter((r) => r.status === 201).length, 60);
    assert.equal(results.filter((r) => r.body.code === 'INSUFFICIENT_BALANCE').length, 40);
    assert.equal(await balance(p, customerId), 0);
    // Both processes' workers race for the rail steps; each transaction must complete exactly once.
    const ids = results.filter((r) => r.status === 201).map((r) => r.body.id as string);
    await waitFor(
      async () =>
        (await p.api.get(`/transactions?customerId=${encodeURIComponent(customerId)}&status=COMPLETED&limit=1`)).body
          .totalCount === 60,
      'all 60 transfer-outs to complete',
      undefined,
      100,
    );
    for (const id of ids)
      assert.deepEqual(await eventTypes(server, id), [
        'OUTGOING_PAYMENT.PENDING',
        'OUTGOING_PAYMENT.PROCESSING',
        'OUTGOING_PAYMENT.COMPLETED',
      ]);
  });

  it('50 executes of one quote spread over both: exactly one runs', async () => {
    const { customerId, accountId } = await fundedCustomer(p, 'USD', 50_000);
    const destination = await externalAccount(p, customerId, 'EUR_ACCOUNT', '000');
    const quote = (
      await p.api.post('/quotes', {
        source: { sourceType: 'ACCOUNT', accountId },
        destination: { destinationType: 'ACCOUNT', accountId: destination },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 10_000,
      })
    ).body;
    const apis = processes.map((s) => client(s.baseUrl, p.sandbox));
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => apis[i % 2]!.post(`/quotes/${quote.id}/execute`)),
    );
    assert.equal(results.filter((r) => r.status === 200).length, 1);
    assert.equal(results.filter((r) => r.status === 409).length, 49);
    assert.equal(await balance(p, customerId), 40_000);
  });

  it('50 transfer-outs with one Idempotency-Key over both: one payment, one stored answer', async () => {
    const { customerId, accountId } = await fundedCustomer(p, 'USD', 500);
    const destination = await externalAccount(p, customerId, 'USD_ACCOUNT', '000');
    const apis = processes.map((s) => client(s.baseUrl, p.sandbox));
    const body = { source: { accountId }, destination: { accountId: destination }, amount: 500 };
    const headers = { 'idempotency-key': `two-processes-${customerId}` };
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => apis[i % 2]!.post('/transfer-out', body, headers)),
    );
    assert.deepEqual(
      [...new Set(results.map((r) => r.status))],
      [201],
      'no INSUFFICIENT_BALANCE: all replay the first',
    );
    assert.equal(new Set(results.map((r) => r.body.id)).size, 1, 'one transaction');
    assert.equal(results.filter((r) => r.headers.get('idempotent-replayed') === 'true').length, 49);
    assert.equal(await balance(p, customerId), 0, 'debited once');
  });
});
