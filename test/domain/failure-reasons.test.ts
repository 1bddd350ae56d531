import assert from 'node:assert/strict';
import { FAILURE_REASONS, INCOMING_FAILURE_REASONS, isFailureReason } from '../../src/domain/failure-reasons.ts';
import {
  QUOTE_OUTCOMES,
  TRANSFER_IN_OUTCOMES,
  TRANSFER_OUTCOMES,
  umaOutcome,
} from '../../src/rails/sandbox-outcomes.ts';
import { describe, it } from '../helpers/node-test.ts';

describe('failure reasons', () => {
  it('every sandbox outcome fails with a public failure reason', () => {
    const outcomes = [
      ...Object.values(TRANSFER_OUTCOMES),
      ...Object.values(TRANSFER_IN_OUTCOMES),
      ...Object.values(QUOTE_OUTCOMES),
      umaOutcome({ behaviour: 'FAIL_COMPLIANCE' } as Parameters<typeof umaOutcome>[0]),
    ];
    const reasons = outcomes.flatMap((o) => ('reason' in o ? [o.reason] : []));
    assert.ok(reasons.length >= 7, 'the tables have failing rows');
    for (const reason of reasons) assert.ok(isFailureReason(reason), `${reason} is not a public failure reason`);
  });

  it("a transfer-in fails with an incoming reason, but for the specification's 002 and 003", () => {
    // INSUFFICIENT_BALANCE and INVALID_BANK_ACCOUNT are the specification's lifecycle reasons for both
    // directions (docs/contract.md lists them); anything else a pull fails with is an incoming value.
    for (const [suffix, outcome] of Object.entries(TRANSFER_IN_OUTCOMES)) {
      if (!('reason' in outcome) || ['002', '003'].includes(suffix)) continue;
      assert.ok(
        (INCOMING_FAILURE_REASONS as readonly string[]).includes(outcome.reason),
        `${suffix}: ${outcome.reason} is not an incoming failure reason`,
      );
    }
  });

  it('lists each value once, and never the refund reasons TIMEOUT or USER_CANCELLATION', () => {
    assert.equal(new Set(FAILURE_REASONS).size, FAILURE_REASONS.length);
    assert.equal(isFailureReason('TIMEOUT'), false);
    assert.equal(isFailureReason('USER_CANCELLATION'), false);
  });
});
