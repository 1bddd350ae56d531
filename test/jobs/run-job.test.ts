/**
 * One claimed job run on its own (src/jobs/run-job.ts), on a bare migrated store: its outcome as written
 * (done, deferred, retried with a growing pause, failed for good), and an outage that strands it instead.
 */
import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { migratedStore } from '../helpers/harness.ts';
import { Handlers } from '../../src/jobs/handlers.ts';
import { runAgainAt } from '../../src/jobs/kinds.ts';
import { claimJobs, enqueueJob, type Job } from '../../src/jobs/queue.ts';
import { retryDelayMs, runJob, type JobRun } from '../../src/jobs/run-job.ts';
import type { Store } from '../../src/store/db.ts';

const T0 = 1_700_000_000_000;
const scope = { platformId: 'Platform:run-job', environment: 'sandbox' as const };

describe('the retry pause of a job that threw', () => {
  it('doubles from one second, capped at five minutes', () => {
    assert.deepEqual([0, 1, 2, 3, 4].map(retryDelayMs), [1000, 1000, 2000, 4000, 8000]);
    assert.equal(retryDelayMs(9), 256_000);
    assert.equal(retryDelayMs(10), 300_000, 'the cap');
    assert.equal(retryDelayMs(1000), 300_000, 'and no overflow past it');
  });
});

describe('the handlers by kind', () => {
  it('takes one handler per kind, and lists the database-only kinds for the claim', () => {
    const handlers = new Handlers();
    handlers.add('transaction.process', { inTransaction: true, run: async () => undefined });
    handlers.add('webhook.deliver', { inTransaction: false, run: async () => undefined });
    assert.throws(
      () => handlers.add('webhook.deliver', { inTransaction: false, run: async () => undefined }),
      /webhook.deliver registered twice/,
    );
    assert.deepEqual(handlers.kindsInTransaction, ['transaction.process']);
    const job = (kind: string) => ({ kind });
    assert.equal(handlers.inTransaction(job('transaction.process')), true);
    assert.equal(handlers.inTransaction(job('webhook.deliver')), false);
    assert.equal(
      handlers.inTransaction(job('unknown.kind')),
      false,
      'an unknown kind fails outside, where it is recorded',
    );
  });
});

describe('one job run on its own', () => {
  const storeOf = migratedStore();

  /** A run over `store` with `handlers`, counting outcomes and strandings. */
  function runOver(store: Store, handlers: Handlers, maxAttempts = 3) {
    const outcomes: string[] = [];
    const stranded: Job[] = [];
    const run: JobRun = {
      store,
      clock: { nowMs: () => T0 },
      log: { error: () => undefined, warn: () => undefined },
      handlers,
      maxAttempts,
      counter: { inc: ({ kind, outcome }) => void outcomes.push(`${kind} ${outcome}`) },
      strand: (job, outage) => (stranded.push(job), outage),
    };
    return { run, outcomes, stranded };
  }

  async function claimOne(store: Store, id: string): Promise<Job> {
    const [job] = await claimJobs(store, T0, 60_000, 1, { id });
    assert.ok(job, `job ${id} is claimed`);
    return job;
  }

  const rowOf = (store: Store, id: string) =>
    store.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('marks a database-only job done with its work, or back in the queue when it asks for later', async () => {
    const store = storeOf();
    const [now, later] = await store.tx(async (trx) => [
      await enqueueJob(trx, scope, 'transaction.process', { id: 'Transaction:now' }, T0),
      await enqueueJob(trx, scope, 'transaction.process', { id: 'Transaction:later' }, T0),
    ]);
    const handlers = new Handlers();
    const seen: string[] = [];
    handlers.add('transaction.process', {
      inTransaction: true,
      run: async (_trx, payload) => {
        seen.push((payload as { id: string }).id);
        return (payload as { id: string }).id.endsWith('later') ? runAgainAt(T0 + 5000) : undefined;
      },
    });
    const { run, outcomes } = runOver(store, handlers);
    assert.equal(await runJob(run, await claimOne(store, now), Promise.resolve(scope)), undefined, 'no outage');
    assert.equal(await runJob(run, await claimOne(store, later), Promise.resolve(scope)), undefined, 'no outage');
    assert.deepEqual(seen, ['Transaction:now', 'Transaction:later'], 'each payload decoded for its handler');
    assert.equal((await rowOf(store, now)).status, 'done');
    const deferred = await rowOf(store, later);
    assert.equal(deferred.status, 'pending', 'back in the queue');
    assert.equal(deferred.run_at, BigInt(T0 + 5000), 'for the time it asked');
    assert.equal(deferred.attempts, 0n, 'waiting is not trying');
    assert.deepEqual(outcomes, ['transaction.process done', 'transaction.process deferred']);
  });

  it('retries a job that threw after its pause, then fails it for good at its last attempt', async () => {
    const store = storeOf();
    const id = await store.tx((trx) =>
      enqueueJob(trx, scope, 'transaction.finish', { id: 'T', result: 'COMPLETE' }, T0),
    );
    const handlers = new Handlers();
    handlers.add('transaction.finish', {
      inTransaction: true,
      run: async () => {
        throw new Error('the rail is down');
      },
    });
    const { run, outcomes } = runOver(store, handlers, 2);
    await runJob(run, await claimOne(store, id), Promise.resolve(scope));
    const retried = await rowOf(store, id);
    assert.equal(retried.status, 'pending', 'retried');
    assert.equal(retried.run_at, BigInt(T0 + retryDelayMs(1)), 'after the first pause');
    assert.equal(retried.last_error, 'the rail is down', 'its error recorded');
    await store.db
      .updateTable('jobs')
      .set({ run_at: BigInt(T0) })
      .where('id', '=', id)
      .execute();
    await runJob(run, await claimOne(store, id), Promise.resolve(scope));
    assert.equal((await rowOf(store, id)).status, 'failed', 'the second attempt of two was the last');
    assert.deepEqual(outcomes, ['transaction.finish retry', 'transaction.finish failed']);
  });

  it('undoes the work of a job whose claim another process has taken since', async () => {
    const store = storeOf();
    const id = await store.tx((trx) => enqueueJob(trx, scope, 'quote.expire', { quoteId: 'Quote:1' }, T0));
    const handlers = new Handlers();
    handlers.add('quote.expire', {
      inTransaction: true,
      run: async (trx) => {
        await trx.insertInto('platforms').values({ id: 'Platform:undone', name: 'undone', created_at: 0n }).execute();
      },
    });
    const { run, outcomes } = runOver(store, handlers);
    const ours = await claimOne(store, id);
    // The lease ran out and another process claimed the job again: its attempt count moved on.
    const theirs = await claimJobs(store, T0 + 60_001, 60_000, 1, { id });
    assert.equal(theirs.length, 1, 'claimed by the other process');
    await runJob(run, ours, Promise.resolve(scope));
    const platforms = await store.db.selectFrom('platforms').select('id').where('id', '=', 'Platform:undone').execute();
    assert.deepEqual(platforms, [], 'our work was rolled back');
    assert.equal((await rowOf(store, id)).status, 'running', "the other process's claim stands");
    assert.deepEqual(outcomes, ['quote.expire retry'], 'counted as a failure of our run');
  });

  it('strands a job whose outcome an outage kept from being written, counting nothing', async () => {
    const store = storeOf();
    const id = await store.tx((trx) => enqueueJob(trx, scope, 'invitation.expire', { code: 'abc' }, T0));
    const handlers = new Handlers();
    const outage = new Error('Connection terminated unexpectedly');
    handlers.add('invitation.expire', {
      inTransaction: false,
      run: async () => {
        throw outage;
      },
    });
    const { run, outcomes, stranded } = runOver(store, handlers);
    const job = await claimOne(store, id);
    assert.equal(await runJob(run, job, Promise.resolve(scope)), outage, 'the outage is answered');
    assert.deepEqual(stranded, [job], 'the job is stranded, to be put back');
    assert.deepEqual(outcomes, [], 'no outcome counted');
    assert.equal((await rowOf(store, id)).status, 'running', 'nothing written');
  });

  it('fails a job of a kind nobody registered, recording why', async () => {
    const store = storeOf();
    const id = await store.tx((trx) => enqueueJob(trx, scope, 'incoming.approval-timeout', { id: 'Incoming:1' }, T0));
    const { run } = runOver(store, new Handlers());
    await runJob(run, await claimOne(store, id), Promise.resolve(scope));
    const row = await rowOf(store, id);
    assert.equal(row.status, 'pending', 'retried, like any failure');
    assert.equal(row.last_error, 'no handler for job kind incoming.approval-timeout');
  });
});
