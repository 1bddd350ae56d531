import assert from 'node:assert/strict';
import {
  BANK_REASON_CODES,
  bankReasonCode,
  bankReasonNote,
  rejectionReason,
  returnReason,
} from '../../src/domain/bank-reasons.ts';
import { OUTGOING_FAILURE_REASONS } from '../../src/domain/failure-reasons.ts';
import { TRANSFER_OUTCOMES } from '../../src/rails/sandbox-outcomes.ts';
import { describe, it } from '../helpers/node-test.ts';

describe('bank reason codes', () => {
  it('map to public outgoing failure reasons only', () => {
    for (const [code, { reason }] of Object.entries(BANK_REASON_CODES)) {
      assert.match(code, /^[A-Z0-9]{4}$/, `${code} is an ISO external code`);
      assert.ok((OUTGOING_FAILURE_REASONS as readonly string[]).includes(reason), `${code} → ${reason} is public`);
    }
  });

  it('a rejection maps its code, and falls back to the coarse reason for what it does not know', () => {
    assert.equal(rejectionReason('AC01'), 'INVALID_BANK_ACCOUNT');
    assert.equal(rejectionReason('AC04'), 'ACCOUNT_CANNOT_RECEIVE');
    assert.equal(rejectionReason('AC06'), 'ACCOUNT_CANNOT_RECEIVE');
    assert.equal(rejectionReason('AG01'), 'ACCOUNT_CANNOT_RECEIVE');
    assert.equal(rejectionReason('AM04'), 'INSUFFICIENT_BALANCE');
    assert.equal(rejectionReason('BE04'), 'ACCOUNT_INVALID');
    assert.equal(rejectionReason('MD07'), 'ACCOUNT_CANNOT_RECEIVE');
    assert.equal(rejectionReason('RC01'), 'ACCOUNT_INVALID');
    assert.equal(rejectionReason('FF01'), 'COUNTERPARTY_POST_TX_FAILED');
    assert.equal(rejectionReason('MS03'), 'COUNTERPARTY_POST_TX_FAILED');
    assert.equal(rejectionReason('NARR'), 'COUNTERPARTY_POST_TX_FAILED');
    assert.equal(rejectionReason('ZZ99'), 'COUNTERPARTY_POST_TX_FAILED');
    assert.equal(rejectionReason(undefined), 'COUNTERPARTY_POST_TX_FAILED');
  });

  it('a return is PAYOUT_RETURNED whatever its code', () => {
    for (const code of ['AC04', 'MD07', 'MS02', 'ZZ99', undefined]) assert.equal(returnReason(code), 'PAYOUT_RETURNED');
  });

  it("gives a code for each reason the sandbox's transfer table fails with, which maps back to it", () => {
    for (const outcome of Object.values(TRANSFER_OUTCOMES)) {
      if (outcome.kind !== 'FAIL' && outcome.kind !== 'FAIL_AFTER') continue;
      const reason = outcome.reason as (typeof OUTGOING_FAILURE_REASONS)[number];
      assert.equal(rejectionReason(bankReasonCode(reason)), reason, `${reason} round trip`);
    }
  });

  it("notes the bank's words for an operator", () => {
    assert.equal(bankReasonNote({ code: 'AC04', info: 'closed 2026' }), 'AC04 ClosedAccountNumber: closed 2026');
    assert.equal(bankReasonNote({ proprietary: 'X1' }), 'X1');
    assert.equal(bankReasonNote({}), undefined);
    assert.equal(bankReasonNote(undefined), undefined);
  });
});
