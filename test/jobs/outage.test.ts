/**
 * The worker while the database is away (src/jobs/outage.ts): the pause between passes, the outage logged
 * once, and the jobs it stranded put back when it returns.
 */
import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { migratedStore } from '../helpers/harness.ts';
import { nextPassInMs, OUTAGE_BACKOFF_MAX_MS, OutageWatch } from '../../src/jobs/outage.ts';
import { claimJobs, enqueueJob } from '../../src/jobs/queue.ts';

const outage = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });

function logged() {
  const lines: string[] = [];
  const log = {
    error: (_obj: unknown, msg?: string) => void lines.push(`error: ${msg}`),
    warn: (_obj: unknown, msg?: string) => void lines.push(`warn: ${msg}`),
  };
  return { lines, log };
}

describe('the pause before the next pass', () => {
  it('is none after a pass that ran jobs, the poll interval after an idle one', () => {
    assert.equal(nextPassInMs(250, 0, 3), 0);
    assert.equal(nextPassInMs(250, 0, 0), 250);
  });

  it('doubles with each pass that found the database away, up to its cap, whatever ran', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 30].map((passes) => nextPassInMs(250, passes, 0)),
      [500, 1000, 2000, 4000, OUTAGE_BACKOFF_MAX_MS, OUTAGE_BACKOFF_MAX_MS],
    );
    assert.equal(nextPassInMs(250, 1, 7), 500, 'jobs that ran before the outage do not make it poll at once');
  });
});

describe('the outage watch', () => {
  it('logs an outage at its first pass only, counts its passes, and logs the return once', () => {
    const { lines, log } = logged();
    const watch = new OutageWatch(log);
    watch.passed();
    assert.deepEqual(lines, [], 'a pass with the database there says nothing');
    watch.failed(outage());
    watch.failed(outage());
    watch.failed(outage());
    assert.equal(watch.outagePasses, 3, 'three passes found it away');
    assert.equal(lines.length, 1, `one line for the outage: ${lines.join(' | ')}`);
    assert.match(lines[0]!, /^error: the job worker lost the database/);
    watch.passed();
    assert.equal(watch.outagePasses, 0, 'the database is back');
    assert.equal(lines.length, 2, 'one line for its return');
    assert.match(lines[1]!, /^warn: the job worker has the database again/);
    watch.passed();
    assert.equal(lines.length, 2, 'and nothing more');
  });

  it('logs any other failure of a pass each time, without counting it as an outage', () => {
    const { lines, log } = logged();
    const watch = new OutageWatch(log);
    watch.failed(new Error('a bug'));
    watch.failed(new Error('a bug'));
    assert.equal(watch.outagePasses, 0, 'no outage');
    assert.deepEqual(lines, ['error: job worker pass failed', 'error: job worker pass failed']);
  });

  describe('stranded jobs', () => {
    const storeOf = migratedStore();
    const T0 = 1_700_000_000_000;
    const scope = { platformId: 'Platform:outage', environment: 'sandbox' as const };

    it('are put back due at once, their attempt given back; one done meanwhile is left alone', async () => {
      const store = storeOf();
      await store.tx(async (trx) => {
        await enqueueJob(trx, scope, 'transaction.process', { id: 'Transaction:stranded' }, T0);
        await enqueueJob(trx, scope, 'transaction.process', { id: 'Transaction:finished' }, T0);
      });
      const claimed = await claimJobs(store, T0, 60_000, 10);
      assert.equal(claimed.length, 2, 'both claimed');
      const watch = new OutageWatch(logged().log);
      const err = outage();
      for (const job of claimed) assert.equal(watch.strand(job, err), err, 'strand answers the outage');
      const finished = claimed.find((job) => job.payload.includes('finished'))!;
      // Its commit went through before the outage; only the answer was lost.
      await store.db.updateTable('jobs').set({ status: 'done' }).where('id', '=', finished.id).execute();
      await watch.releaseStranded(store.db, () => T0 + 1000);
      const rows = await store.db.selectFrom('jobs').selectAll().orderBy('id').execute();
      const byId = new Map(rows.map((row) => [row.id, row]));
      const stranded = byId.get(claimed.find((job) => job !== finished)!.id)!;
      assert.equal(stranded.status, 'pending', 'the stranded job is back in the queue');
      assert.equal(stranded.run_at, BigInt(T0 + 1000), 'due at once');
      assert.equal(stranded.attempts, 0n, 'the outage cost it no attempt');
      assert.equal(byId.get(finished.id)!.status, 'done', 'the job that finished stays done');
      await watch.releaseStranded(store.db, () => T0 + 2000);
      assert.equal(
        (await store.db.selectFrom('jobs').select('run_at').where('id', '=', stranded.id).executeTakeFirstOrThrow())
          .run_at,
        BigInt(T0 + 1000),
        'released once: nothing is left stranded',
      );
    });
  });
});
