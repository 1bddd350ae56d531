// The bound on calls at once to one connector (services/connectors/in-flight.ts), alone: what a job over it
// sees (no slot now), and what a caller that waits sees (a slot handed over, or a wait that runs out). The
// bound against a real adapter is in cancel.test.ts. No database: the same on both engines.
import assert from 'node:assert/strict';
import { InFlightBound } from '../../src/services/connectors/in-flight.ts';
import { describe, it } from '../helpers/node-test.ts';

describe('the bound on calls in flight', () => {
  it('gives at most `max` slots at once, and one back for each given back', () => {
    const bound = new InFlightBound(2);
    assert.deepEqual([bound.tryTake(), bound.tryTake(), bound.tryTake()], [true, true, false]);
    bound.give();
    assert.deepEqual([bound.tryTake(), bound.tryTake()], [true, false]);
  });

  it('hands a slot given back to the first caller waiting, before anyone who asks later', async () => {
    const bound = new InFlightBound(1);
    assert.equal(bound.tryTake(), true);
    const waiting = bound.take(5_000);
    bound.give();
    assert.equal(await waiting, true, 'the waiting caller has the slot');
    assert.equal(bound.tryTake(), false, 'so a later one has none');
  });

  it('answers false when the wait runs out, and that caller does not take a slot later', async () => {
    const bound = new InFlightBound(1);
    assert.equal(bound.tryTake(), true);
    assert.equal(await bound.take(20), false);
    bound.give();
    assert.equal(bound.tryTake(), true, 'the slot went back to the pool, not to the caller that gave up');
  });

  it('runs a call in a slot and gives it back even when the call throws', async () => {
    const bound = new InFlightBound(1);
    assert.deepEqual(await bound.tryRun(async () => 7), { value: 7 });
    await assert.rejects(
      bound.tryRun(async () => Promise.reject(new Error('down'))),
      /down/,
    );
    let inner: unknown;
    const outer = await bound.tryRun(async () => {
      inner = await bound.tryRun(async () => 1);
      return 2;
    });
    assert.deepEqual([outer, inner], [{ value: 2 }, undefined], 'no second slot while the first is out');
  });
});
