/** How the worker keys outside jobs for its lane (src/jobs/lane-jobs.ts). */
import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import type { Registered } from '../../src/jobs/handlers.ts';
import { laneOrderKey, scopeKeyIn, scopeKeyOf } from '../../src/jobs/lane-jobs.ts';
import type { Job } from '../../src/jobs/queue.ts';

function job(id: string, payload: string, platformId = 'Platform:a', environment: Job['environment'] = 'sandbox'): Job {
  return {
    id,
    platform_id: platformId,
    environment,
    kind: 'webhook.deliver',
    payload,
    status: 'running',
    run_at: 0n,
    lease_until: 0n,
    attempts: 1n,
    last_error: null,
    created_at: 0n,
    updated_at: 0n,
  };
}

const byObject: Registered = {
  inTransaction: false,
  run: async () => undefined,
  orderKey: (payload) => (payload as { objectId: string }).objectId,
};

describe("an outside job's keys in the lane", () => {
  it('jobs of one object in one scope share an order key; other objects and scopes do not', () => {
    const a1 = laneOrderKey(job('Job:1', '{"objectId":"Transaction:1"}'), byObject);
    const a2 = laneOrderKey(job('Job:2', '{"objectId":"Transaction:1"}'), byObject);
    const other = laneOrderKey(job('Job:3', '{"objectId":"Transaction:2"}'), byObject);
    const production = laneOrderKey(job('Job:4', '{"objectId":"Transaction:1"}', 'Platform:a', 'production'), byObject);
    assert.equal(a1, a2, 'the same object: one after another');
    assert.equal(a1, 'Platform:a/sandbox/webhook.deliver/Transaction:1');
    assert.notEqual(other, a1, 'another object runs beside it');
    assert.notEqual(production, a1, 'the same object id in another environment runs beside it');
  });

  it('a job without an order key, or whose payload does not decode, goes alone', () => {
    const { orderKey: _none, ...unordered } = byObject as Extract<Registered, { inTransaction: false }>;
    assert.equal(laneOrderKey(job('Job:5', '{"objectId":"Transaction:1"}'), unordered), 'Platform:a/sandbox/Job:5');
    assert.equal(laneOrderKey(job('Job:6', '{not json'), byObject), 'Platform:a/sandbox/Job:6');
    assert.equal(laneOrderKey(job('Job:7', '{}'), undefined), 'Platform:a/sandbox/Job:7', 'an unknown kind too');
  });

  it("a drain's filter picks the lane's scopes by platform and environment", () => {
    const keys = [
      job('1', '', 'Platform:a'),
      job('2', '', 'Platform:ab'),
      job('3', '', 'Platform:a', 'production'),
    ].map(scopeKeyOf);
    assert.deepEqual(keys.map(scopeKeyIn({})), [true, true, true], 'no filter: every scope');
    assert.deepEqual(
      keys.map(scopeKeyIn({ platformId: 'Platform:a' })),
      [true, false, true],
      'one platform, not a prefix',
    );
    assert.deepEqual(keys.map(scopeKeyIn({ environment: 'sandbox' })), [true, true, false], 'one environment');
    assert.deepEqual(keys.map(scopeKeyIn({ platformId: 'Platform:a', environment: 'production' })), [
      false,
      false,
      true,
    ]);
  });
});
