/**
 * The job queue keeps only what it still needs: a done job is purged once its keeping time has passed,
 * a failed one once its own (longer) keeping time has, a pending or running job never. The claim still
 * takes due jobs in the order they fell due. Times here are stamps handed to the queue, not the clock's.
 */
import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { migratedStore } from '../helpers/harness.ts';
import {
  claimJobs,
  completeJobs,
  enqueueJob,
  failJob,
  purgeFinishedJobs,
  type PurgeKeeping,
} from '../../src/jobs/queue.ts';

const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;
const KEEP: PurgeKeeping = { doneMs: HOUR, failedMs: 24 * HOUR };
const LEASE_MS = 60_000;
const scope = { platformId: 'Platform:upkeep', environment: 'sandbox' as const };

describe('job queue upkeep', () => {
  const storeOf = migratedStore();

  /** A job queued at `atMs`, due `delayMs` later. */
  const queued = (atMs: number, delayMs = 0) =>
    storeOf().tx((trx) => enqueueJob(trx, scope, 'quote.expire', { quoteId: `q-${atMs}` }, atMs, delayMs));

  /** A job queued, claimed and finished (done or failed for good) at `atMs`. */
  async function finished(outcome: 'done' | 'failed', atMs: number): Promise<string> {
    const id = await queued(atMs);
    const [job] = await claimJobs(storeOf(), atMs, LEASE_MS, 1, { id });
    assert.ok(job, `job ${id} is claimed`);
    if (outcome === 'done') assert.ok(await completeJobs(storeOf().db, [job], atMs), `job ${id} is marked done`);
    else await failJob(storeOf(), job, 'gave up', atMs, null);
    return id;
  }

  async function statuses(ids: string[]): Promise<Record<string, string>> {
    const rows = await storeOf().db.selectFrom('jobs').select(['id', 'status']).where('id', 'in', ids).execute();
    return Object.fromEntries(rows.map((r) => [r.id, r.status]));
  }

  async function clear(): Promise<void> {
    await storeOf().db.deleteFrom('jobs').execute();
  }

  it('purges done jobs past their keeping time, failed ones past theirs, never a pending or running one', async () => {
    await clear();
    const done = await finished('done', T0);
    const failed = await finished('failed', T0);
    const doneLater = await finished('done', T0 + HOUR);
    const pending = await queued(T0);
    const running = await queued(T0);
    assert.equal((await claimJobs(storeOf(), T0, LEASE_MS, 1, { id: running })).length, 1, 'one job is running');
    const all = [done, failed, doneLater, pending, running];

    assert.equal(await purgeFinishedJobs(storeOf(), T0 + HOUR - 1, KEEP), 0, 'nothing is past its keeping time yet');
    assert.equal(Object.keys(await statuses(all)).length, 5, 'every job is still there');

    assert.equal(await purgeFinishedJobs(storeOf(), T0 + HOUR + 1, KEEP), 1, 'one done job is past its keeping time');
    assert.deepEqual(
      await statuses(all),
      { [failed]: 'failed', [doneLater]: 'done', [pending]: 'pending', [running]: 'running' },
      'the done job finished an hour ago is gone; a failed one is kept longer',
    );

    const muchLater = T0 + 1000 * 24 * HOUR;
    assert.equal(await purgeFinishedJobs(storeOf(), muchLater, KEEP), 2, 'the other done job and the failed one go');
    assert.deepEqual(
      await statuses(all),
      { [pending]: 'pending', [running]: 'running' },
      'a pending or running job is never purged, however old',
    );
  });

  it('works a backlog off in bounded batches, a bounded number of them per pass', async () => {
    await clear();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(await finished('done', T0 + i));
    const later = T0 + 2 * HOUR;
    const limits = { batch: 3, batches: 2 };
    assert.equal(await purgeFinishedJobs(storeOf(), later, KEEP, limits), 6, 'two batches of three in one pass');
    assert.equal(Object.keys(await statuses(ids)).length, 1, 'one job is left for the next pass');
    assert.equal(await purgeFinishedJobs(storeOf(), later, KEEP, limits), 1, 'the next pass takes the last one');
    assert.equal(Object.keys(await statuses(ids)).length, 0, 'the backlog is gone');
  });

  it('still claims due jobs in the order they fell due, with lapsed leases, and nothing else', async () => {
    await clear();
    const third = await queued(T0, 3);
    const first = await queued(T0, 1);
    const second = await queued(T0, 2);
    await queued(T0, HOUR); // not due
    const lapsed = await queued(T0);
    assert.equal((await claimJobs(storeOf(), T0, 10, 1, { id: lapsed })).length, 1, 'a claim whose lease will lapse');
    const held = await queued(T0);
    assert.equal((await claimJobs(storeOf(), T0, HOUR, 1, { id: held })).length, 1, 'a claim whose lease holds');
    await finished('done', T0);

    const now = T0 + 100;
    const firstTwo = await claimJobs(storeOf(), now, LEASE_MS, 2);
    assert.deepEqual(
      firstTwo.map((j) => j.id),
      [lapsed, first],
      'the lapsed claim (due first) and the earliest pending job',
    );
    const rest = await claimJobs(storeOf(), now, LEASE_MS, 10);
    assert.deepEqual(
      rest.map((j) => j.id),
      [second, third],
      'then the others in order; not the job not yet due, the held one or the done one',
    );
    assert.equal((await claimJobs(storeOf(), now, LEASE_MS, 10)).length, 0, 'nothing else is due');
  });
});
