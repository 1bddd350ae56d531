// Run by promise-hooks.test.ts in a process of its own (node:test turns promise hooks on in its own
// process): starts the service in this process, sends it the money path's requests, and prints what the
// probe saw as JSON on its last line.
import assert from 'node:assert/strict';
import { AsyncLocalStorage, executionAsyncId } from 'node:async_hooks';
import { startServer } from '../helpers/harness.ts';
import { accountQuote, externalAccount, fundedCustomer, runDueJobs } from '../money/fixtures.ts';

/**
 * Whether promise hooks run now: with them on, each continuation of an async function is a resource of its
 * own, with an id of its own; with them off, both continuations below run under the same id.
 */
async function promiseHooksOn(): Promise<boolean> {
  await Promise.resolve();
  const first = executionAsyncId();
  await Promise.resolve();
  return executionAsyncId() !== first;
}

const atStart = await promiseHooksOn();
const storage = new AsyncLocalStorage<number>();
const inStorage = await storage.run(1, () => promiseHooksOn());
storage.disable();
const afterStorage = await promiseHooksOn();

const server = await startServer();
try {
  const p = await server.platform();
  const { customerId, accountId } = await fundedCustomer(p, 'USD', 100_000);
  const usd = await externalAccount(p, customerId, 'USD_ACCOUNT', '000');
  const eur = await externalAccount(p, customerId, 'EUR_ACCOUNT', '000');
  const body = { source: { accountId }, destination: { accountId: usd }, amount: 100 };
  const plain = await p.api.post('/transfer-out', body);
  assert.equal(plain.status, 201, JSON.stringify(plain.body));
  const keyed = await Promise.all(
    ['a', 'a', 'b'].map((key) => p.api.post('/transfer-out', body, { 'idempotency-key': `hooks-${key}` })),
  );
  assert.deepEqual(
    keyed.map((r) => r.status),
    [201, 201, 201],
    'idempotent requests answered',
  );
  const quote = await accountQuote(p, accountId, eur, 1_000);
  const executed = await p.api.post(`/quotes/${quote.id}/execute`, undefined, { 'idempotency-key': 'q' });
  assert.equal(executed.status, 200, JSON.stringify(executed.body));
  await runDueJobs(server);
  const done = await p.api.get(`/transactions/${plain.body.id}`);
  assert.equal(done.body.status, 'COMPLETED', 'the rail step ran');
  const afterRequests = await promiseHooksOn();
  console.log(JSON.stringify({ atStart, inStorage, afterStorage, afterRequests }));
} finally {
  await server.close();
}
