/** The worker's upkeep after a pass (src/jobs/chores.ts): when each chore is due, and a failing one. */
import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { Chores } from '../../src/jobs/chores.ts';

function setUp() {
  const clock = { ms: 1_000_000, nowMs: () => clock.ms };
  const errors: string[] = [];
  const log = { error: (_obj: unknown, msg?: string) => void errors.push(msg ?? ''), warn: () => undefined };
  return { clock, errors, chores: new Chores(clock, log) };
}

describe('worker chores', () => {
  it('runs an interval chore at the first pass, then once the interval has gone by since it started', async () => {
    const { clock, chores } = setUp();
    let runs = 0;
    chores.every(15_000, async () => void runs++);
    await chores.runDue();
    assert.equal(runs, 1, 'due at the first pass');
    clock.ms += 14_999;
    await chores.runDue();
    assert.equal(runs, 1, 'not before the interval');
    clock.ms += 1;
    await chores.runDue();
    assert.equal(runs, 2, 'once the interval is over');
  });

  it('runs a count chore each time the count has grown by its step', async () => {
    const { chores } = setUp();
    let claimed = 0;
    let vacuums = 0;
    chores.afterEach(
      100,
      () => claimed,
      async () => void vacuums++,
    );
    await chores.runDue();
    assert.equal(vacuums, 0, 'nothing claimed yet');
    claimed = 99;
    await chores.runDue();
    assert.equal(vacuums, 0, 'one short of the step');
    claimed = 150;
    await chores.runDue();
    assert.equal(vacuums, 1, 'the step is reached');
    claimed = 249;
    await chores.runDue();
    assert.equal(vacuums, 1, 'the next step counts from the last run (150), not from 100');
    claimed = 250;
    await chores.runDue();
    assert.equal(vacuums, 2, 'a hundred more since the last run');
  });

  it('logs a chore that fails, runs the others, and tries it again at its next interval', async () => {
    const { clock, errors, chores } = setUp();
    let failing = 0;
    let other = 0;
    chores.every(1000, async () => {
      failing++;
      throw new Error('purge failed');
    });
    chores.every(1000, async () => void other++);
    await chores.runDue();
    assert.deepEqual([failing, other], [1, 1], 'both ran');
    assert.equal(errors.length, 1, 'the failure is logged');
    await chores.runDue();
    assert.equal(failing, 1, 'not again before its interval');
    clock.ms += 1000;
    await chores.runDue();
    assert.deepEqual([failing, other], [2, 2], 'both again at the next interval');
  });
});
