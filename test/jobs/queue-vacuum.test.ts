/**
 * On PostgreSQL a claim moves a job out of `pending` and its completion out of `running`, and each move leaves
 * the old index entry behind until VACUUM. The claim's index scan walks every entry left since the last one:
 * without a vacuum, its cost follows the jobs the queue has run, not the jobs waiting (2.8 ms a claim under the
 * bench's load, and more with every job). The worker vacuums the table itself after a number of claims, so a
 * claim's cost stays that of the queue as it is, whatever the server's autovacuum is set to.
 */
import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { CompiledQuery } from 'kysely';
import { engine, migratedStore } from '../helpers/harness.ts';
import { recordStatements, type Statement } from '../helpers/statements.ts';
import { waitFor } from '../helpers/wait.ts';
import { claimJobs, completeJobs, enqueueJob, vacuumJobs } from '../../src/jobs/queue.ts';
import { JobWorker } from '../../src/jobs/worker.ts';
import type { Store } from '../../src/store/db.ts';

const T0 = 1_700_000_000_000;
const LEASE_MS = 60_000;
const scope = { platformId: 'Platform:vacuum', environment: 'sandbox' as const };
const quiet = { error: () => undefined, warn: () => undefined };

/** Queues `count` jobs due at T0 in one transaction. */
async function queue(store: Store, count: number, from: number): Promise<void> {
  await store.tx(async (trx) => {
    for (let i = 0; i < count; i++)
      await enqueueJob(trx, scope, 'transaction.process', { id: `Transaction:${from + i}` }, T0);
  });
}

/** Runs `count` jobs through the queue as a worker does: queued, claimed a hundred at a time, done. */
async function churn(store: Store, count: number): Promise<void> {
  for (let done = 0; done < count; done += 100) {
    await queue(store, 100, done);
    const jobs = await claimJobs(store, T0, LEASE_MS, 100);
    assert.equal(jobs.length, 100, 'each batch is claimed whole');
    assert.ok(await completeJobs(store.db, jobs, T0), 'and marked done');
  }
}

/** The claim's statement as the queue sends it, taken from a claim that finds nothing due. */
async function claimStatement(store: Store): Promise<Statement> {
  const log = recordStatements();
  assert.equal((await claimJobs(store, T0, LEASE_MS, 20)).length, 0, 'nothing is due while the claim is taken');
  const claim = log.takeWithValues().find((s) => s.text.startsWith('select "id" from "jobs"'));
  assert.ok(claim, 'the claim selects the due jobs');
  return claim;
}

interface PlanNode {
  'Node Type': string;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}

/**
 * Buffers (8 kB pages) the claim reads to find its jobs, run as it is sent. The pages its row locks then
 * touch (LockRows) are left out: they follow the jobs it takes, which is the same twenty every time here.
 */
async function pagesRead(store: Store, claim: Statement): Promise<number> {
  const explain = CompiledQuery.raw(`explain (analyze, buffers, format json) ${claim.text}`, [...claim.values]);
  const { rows } = await store.db.executeQuery<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(explain);
  let node: PlanNode | undefined = rows[0]!['QUERY PLAN'][0]!.Plan;
  while (node && node['Node Type'] !== 'LockRows') node = node.Plans?.[0];
  const search = node?.Plans?.[0];
  assert.ok(search, 'the claim locks the rows its search found');
  return search['Shared Hit Blocks'] + search['Shared Read Blocks'];
}

describe('the job queue on PostgreSQL', { skip: engine === 'postgres' ? false : 'PostgreSQL only' }, () => {
  const storeOf = migratedStore();

  it('a claim reads the jobs waiting once the table is vacuumed, not every job run since', async () => {
    const store = storeOf();
    const claim = await claimStatement(store);
    await queue(store, 20, 1_000_000);
    const fresh = await pagesRead(store, claim);
    await churn(store, 2_000);
    const churned = await pagesRead(store, claim);
    assert.ok(churned > 5 * fresh, `2,000 jobs run leave entries the claim walks (${fresh} → ${churned} pages)`);
    await vacuumJobs(store);
    const vacuumed = await pagesRead(store, claim);
    assert.ok(vacuumed <= fresh + 5, `after the vacuum it reads what it read before (${fresh} → ${vacuumed} pages)`);
  });

  it('the worker vacuums the table after a number of claims', async () => {
    const store = storeOf();
    await store.db.deleteFrom('jobs').execute();
    const worker = new JobWorker(store, { nowMs: () => T0 }, quiet, {
      pollMs: 10,
      leaseMs: LEASE_MS,
      batchSize: 50,
      maxAttempts: 3,
      scopeOf: async () => scope,
    });
    worker.registerInTransaction('transaction.process', async () => undefined);
    worker.vacuumAfterClaims(100);
    const log = recordStatements();
    const vacuums = () => log.takeWithValues().filter((s) => /^vacuum/i.test(s.text)).length;
    await queue(store, 90, 2_000_000);
    worker.start();
    try {
      await waitFor(async () => (await pendingJobs(store)) === 0, 'the first 90 jobs to run');
      assert.equal(vacuums(), 0, 'no vacuum after 90 claims');
      await queue(store, 20, 3_000_000);
      let seen = 0;
      await waitFor(() => (seen += vacuums()) > 0, 'a vacuum once the claims pass 100');
      assert.equal(seen, 1, 'one vacuum once the claims passed 100');
    } finally {
      await worker.stop();
    }
  });
});

async function pendingJobs(store: Store): Promise<number> {
  const row = await store.db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<bigint>().as('n'))
    .where('status', '!=', 'done')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
