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
import { runAtMost } from '../../src/jobs/pool-share.ts';
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

describe('runAtMost, the bound itself', () => {
  /** Runs `count` items through runAtMost, each a short sleep; answers the most that ran at once and the order. */
  async function trace(count: number, atOnce: number | undefined) {
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const items = Array.from({ length: count }, (_, i) => i);
    await runAtMost(items, atOnce, async (item) => {
      started.push(item);
      most = Math.max(most, ++running);
      await sleep(2);
      running--;
    });
    return { most, started };
  }

  it('runs every item, at most `atOnce` at a time, taking them in order', async () => {
    const { most, started } = await trace(10, 3);
    assert.equal(most, 3, 'three at once, never more');
    assert.deepEqual(started, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 'each runner takes the next item');
  });

  it('runs all at once when unbounded, and never starts more runners than items', async () => {
    assert.equal((await trace(6, undefined)).most, 6, 'unbounded');
    assert.equal((await trace(2, 5)).most, 2, 'two items, two at once');
    assert.deepEqual((await trace(0, 3)).started, [], 'nothing to run');
  });
});
