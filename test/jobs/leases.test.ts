/**
 * How long a claim holds depends on what the job does. A webhook POST is slow and cannot be taken back, so
 * no other process may take it for the long lease. A database-only job (a rail step) commits its work and
 * its completion together, so another process that takes it early only has its own run undone: its claim is
 * short, and a step whose process died mid-way runs again after that, not after the long lease.
 */
import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { migratedStore } from '../helpers/harness.ts';
import { claimJobs, enqueueJob, type Job } from '../../src/jobs/queue.ts';
import { JobWorker } from '../../src/jobs/worker.ts';

const T0 = 1_700_000_000_000;
const LEASE_MS = 60_000;
const SHORT_MS = 20_000;
const scope = { platformId: 'Platform:leases', environment: 'sandbox' as const };
const quiet = { error: () => undefined, warn: () => undefined };

describe('job leases', () => {
  const storeOf = migratedStore();

  it("the worker's claim: the short lease for a database-only job, the long one for an outside job", async () => {
    const store = storeOf();
    await store.tx(async (trx) => {
      await enqueueJob(trx, scope, 'transaction.process', { id: 'Transaction:a' }, T0);
      await enqueueJob(trx, scope, 'webhook.deliver', { eventId: 'Event:a', run: 1, attempt: 1 }, T0);
    });
    const seen = new Map<string, Job>();
    const worker = new JobWorker(store, { nowMs: () => T0 }, quiet, {
      pollMs: 50,
      leaseMs: LEASE_MS,
      transactionalLeaseMs: SHORT_MS,
      batchSize: 10,
      maxAttempts: 3,
      scopeOf: async () => scope,
    });
    worker.registerInTransaction('transaction.process', async (_trx, _payload, job) => void seen.set(job.kind, job));
    worker.register('webhook.deliver', async (_payload, job) => void seen.set(job.kind, job));
    assert.equal(await worker.drain(), 2, 'both jobs ran in one pass');
    const leaseOf = (kind: string) => Number(seen.get(kind)!.lease_until) - T0;
    assert.equal(leaseOf('transaction.process'), SHORT_MS, 'a rail step is held for the short lease');
    assert.equal(leaseOf('webhook.deliver'), LEASE_MS, 'a webhook delivery for the long one');
  });

  it('a step claimed by a process that died is due again once the short lease has run out', async () => {
    const store = storeOf();
    const id = await store.tx((trx) => enqueueJob(trx, scope, 'transaction.process', { id: 'Transaction:b' }, T0));
    const shorter = { kinds: ['transaction.process'], ms: SHORT_MS };
    // The claim of a process that then died: nothing ever completes it.
    assert.equal((await claimJobs(store, T0, LEASE_MS, 1, { id }, shorter)).length, 1, 'claimed, then abandoned');
    const before = await claimJobs(store, T0 + SHORT_MS - 1, LEASE_MS, 1, { id }, shorter);
    assert.equal(before.length, 0, 'not while its short lease holds');
    const after = await claimJobs(store, T0 + SHORT_MS + 1, LEASE_MS, 1, { id }, shorter);
    assert.equal(after.length, 1, 'due again a moment after it, not after the long lease');
    assert.equal(after[0]!.attempts, 2n, 'the second claim counts a second attempt');
  });
});
