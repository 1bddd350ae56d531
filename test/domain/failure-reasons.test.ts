import assert from 'node:assert/strict';
import { FAILURE_REASONS, isFailureReason } from '../../src/domain/failure-reasons.ts';
import { QUOTE_OUTCOMES, TRANSFER_OUTCOMES, umaOutcome } from '../../src/rails/sandbox-outcomes.ts';
import { describe, it } from '../helpers/node-test.ts';

describe('failure reasons', () => {
  it('every sandbox outcome fails with a public failure reason', () => {
    const outcomes = [
      ...Object.values(TRANSFER_OUTCOMES),
      ...Object.values(QUOTE_OUTCOMES),
      umaOutcome({ behaviour: 'FAIL_COMPLIANCE' } as Parameters<typeof umaOutcome>[0]),
    ];
    const reasons = outcomes.flatMap((o) => ('reason' in o ? [o.reason] : []));
    assert.ok(reasons.length >= 7, 'the tables have failing rows');
    for (const reason of reasons) assert.ok(isFailureReason(reason), `${reason} is not a public failure reason`);
  });

  it('lists each value once, and never the refund reasons TIMEOUT or USER_CANCELLATION', () => {
    assert.equal(new Set(FAILURE_REASONS).size, FAILURE_REASONS.length);
    assert.equal(isFailureReason('TIMEOUT'), false);
    assert.equal(isFailureReason('USER_CANCELLATION'), false);
  });
});
