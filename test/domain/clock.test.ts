import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { systemClock } from '../../src/domain/clock.ts';
import { newId } from '../../src/domain/ids.ts';

describe('the system clock', () => {
  it('never reads earlier than it did when the wall clock steps back, so times keep the order of ids', (t) => {
    const wall = Date.now() + 60_000;
    // Two readings per row below: one for its id, one for its time.
    const readings = [1, 1, 0, 0, -5, -5, 2, 2].map((step) => wall + step);
    t.mock.method(Date, 'now', () => readings.shift() ?? wall + 2);
    const made = Array.from({ length: 4 }, () => ({ id: newId('LogEntry'), at: systemClock.nowMs() }));
    assert.deepEqual(
      made.map((m) => m.at - wall),
      [1, 1, 1, 2],
      'each time at least the one before',
    );
    for (let i = 1; i < made.length; i++) assert.ok(made[i - 1]!.id < made[i]!.id, 'ids in the order made');
  });
});
