// Cut-offs: the latest cut-off instant at or before now, today's or yesterday's (UTC). Pure.
import assert from 'node:assert/strict';
import { lastCutOffAt } from '../../src/services/bank/index.ts';
import { describe, it } from '../helpers/node-test.ts';

const at = (h: number, m: number, day = 2) => Date.UTC(2026, 11, day, h, m);
const cutOffs = [
  { hour: 9, minute: 0 },
  { hour: 14, minute: 30 },
];

describe('lastCutOffAt', () => {
  it('answers the cut-off that passed last, yesterday’s before today’s first', () => {
    assert.equal(lastCutOffAt(cutOffs, at(8, 59)), at(14, 30, 1), 'yesterday afternoon');
    assert.equal(lastCutOffAt(cutOffs, at(9, 0)), at(9, 0), 'a cut-off is due on its minute');
    assert.equal(lastCutOffAt(cutOffs, at(14, 29)), at(9, 0));
    assert.equal(lastCutOffAt(cutOffs, at(23, 59)), at(14, 30));
    assert.equal(lastCutOffAt([], at(12, 0)), undefined, 'no cut-offs: on demand only');
  });
});
