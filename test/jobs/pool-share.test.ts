/**
 * The worker runs database-only jobs in groups, each group in a database transaction of its own, the groups
 * side by side. On PostgreSQL each transaction holds a pooled connection: all the groups of a pass at once
 * (ten for a batch of a hundred) took the whole pool of ten, and the API's requests waited behind them, up to
 * the 10 s connection timeout and a 503, whenever a backlog of rail steps fell due at once (after an outage,
 * or a sandbox clock moved a day ahead). The worker now runs at most `groupsAtOnce` groups at a time: half
 * the pool, by default. (SQLite has no pool: its store runs one transaction's work at a time anyway.)
 */
import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { engine, migratedStore } from '../helpers/harness.ts';
import { enqueueJob } from '../../src/jobs/queue.ts';
import { JobWorker } from '../../src/jobs/worker.ts';

const T0 = 1_700_000_000_000;
const scope = { platformId: 'Platform:pool-share', environment: 'sandbox' as const };
const quiet = { error: () => undefined, warn: () => undefined };

describe("the worker's share of the PostgreSQL pool", {
  skip: engine === 'postgres' ? false : 'PostgreSQL only',
}, () => {
  const storeOf = migratedStore();

  it('runs no more groups of database-only jobs at once than it is given', async () => {
    const store = storeOf();
    await store.tx(async (trx) => {
      for (let i = 0; i < 100; i++) await enqueueJob(trx, scope, 'transaction.process', { id: `Transaction:${i}` }, T0);
    });
    const worker = new JobWorker(store, { nowMs: () => T0 }, quiet, {
      pollMs: 50,
      leaseMs: 60_000,
      batchSize: 100,
      groupsAtOnce: 3,
      maxAttempts: 3,
      scopeOf: async () => scope,
    });
    // A group's jobs run one after another in its transaction: jobs running at once are groups running at once.
    let running = 0;
    let most = 0;
    worker.registerInTransaction('transaction.process', async () => {
      most = Math.max(most, ++running);
      await sleep(2);
      running--;
    });
    assert.equal(await worker.drain({}, 1), 100, 'one pass claims and runs all hundred jobs (ten groups)');
    assert.equal(most, 3, 'three groups ran side by side, never more');
  });
});
