import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { OutsideLane } from '../../src/jobs/outside-lane.ts';
import { waitFor } from '../helpers/wait.ts';

/** A job the test finishes by hand, noting when it started. */
function gate(started: string[], name: string) {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    run: async () => {
      started.push(name);
      await opened;
    },
    open,
  };
}

describe('the outside lane', () => {
  it("runs different keys side by side and one key's jobs one after another, in order", async () => {
    const lane = new OutsideLane(4, 4);
    const started: string[] = [];
    const a1 = gate(started, 'a1');
    const a2 = gate(started, 'a2');
    const b1 = gate(started, 'b1');
    const done = [
      lane.add({ orderKey: 'a', scopeKey: 's', run: a1.run }),
      lane.add({ orderKey: 'a', scopeKey: 's', run: a2.run }),
      lane.add({ orderKey: 'b', scopeKey: 's', run: b1.run }),
    ];
    await waitFor(() => started.length === 2, 'a1 and b1 start');
    assert.deepEqual(started, ['a1', 'b1'], 'a2 waits behind a1 while b1 runs beside it');
    b1.open();
    await done[2];
    assert.deepEqual(started, ['a1', 'b1'], 'a2 still waits for a1');
    a1.open();
    await waitFor(() => started.length === 3, 'a2 starts once a1 is done');
    assert.equal(started[2], 'a2', 'a2 is next');
    a2.open();
    await Promise.all(done);
  });

  it('keeps to its limit, and to its share per scope, and tells when a scope is idle', async () => {
    const lane = new OutsideLane(3, 2);
    const started: string[] = [];
    const jobs = ['x1', 'x2', 'x3', 'y1', 'y2'].map((name) => ({ name, ...gate(started, name) }));
    const done = jobs.map((j) => lane.add({ orderKey: j.name, scopeKey: j.name[0]!, run: j.run }));
    await waitFor(() => started.length === 3, 'three jobs start');
    assert.deepEqual(started, ['x1', 'x2', 'y1'], 'scope x takes two slots, scope y the third');
    assert.equal(lane.hasRoom(), true, 'two wait, fewer than the limit');
    let yIdle = false;
    const yIdleNow = lane.idle((scope) => scope === 'y').then(() => (yIdle = true));
    jobs[3]!.open();
    await waitFor(() => started.length === 4, 'the freed slot goes to the next y job');
    assert.equal(started[3], 'y2', 'x3 still waits for an x slot');
    jobs[4]!.open();
    await yIdleNow;
    assert.equal(yIdle, true, 'scope y is idle while x still runs');
    for (const j of jobs) j.open();
    await Promise.all(done);
    await lane.idle();
    assert.deepEqual([...started].sort(), ['x1', 'x2', 'x3', 'y1', 'y2'], 'every job ran');
  });

  it('survives a job that throws', async () => {
    const lane = new OutsideLane(1, 1);
    const ran: string[] = [];
    await lane.add({ orderKey: 'k', scopeKey: 's', run: async () => Promise.reject(new Error('boom')) });
    await lane.add({ orderKey: 'k', scopeKey: 's', run: async () => void ran.push('next') });
    assert.deepEqual(ran, ['next'], 'the next job of the key runs');
  });
});
