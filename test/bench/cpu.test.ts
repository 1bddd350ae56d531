// The bench's CPU per lifecycle reads PostgreSQL's processes before and after a load. A pool closes
// connections left idle between rounds, so a backend may end in between, or start: the difference must be
// taken per process, or an ended backend's whole history is subtracted from the load's.
import assert from 'node:assert/strict';
import { postgresCpuBetween } from '../../bench/lab/lib/cpu.ts';
import { describe, it } from '../helpers/node-test.ts';

describe('PostgreSQL CPU between two readings', () => {
  it('adds what each process grew by, counts a new one from zero, and leaves out one that ended', () => {
    const before = new Map([
      [10, 1.5], // runs through the load
      [11, 40], // a connection closed during the load, with 40 s of earlier rounds behind it
    ]);
    const after = new Map([
      [10, 2.25],
      [12, 0.5], // a connection opened during the load
    ]);
    assert.equal(postgresCpuBetween(before, after), 1.25, 'growth of 10 plus all of 12; nothing of 11');
  });

  it('is zero when nothing ran', () => {
    const same = new Map([[10, 3]]);
    assert.equal(postgresCpuBetween(same, new Map(same)), 0, 'no growth, no new process');
  });
});
