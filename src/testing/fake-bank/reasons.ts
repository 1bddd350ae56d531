// TEMPORARY until h-bank-in merges: domain/bank-reasons.ts's bankReasonCode (the first code mapping back to a
// reason). Replaced by a re-export at merge.
import type { OutgoingFailureReason } from '../../domain/failure-reasons.ts';

const CODES: Partial<Record<OutgoingFailureReason, string>> = {
  INVALID_BANK_ACCOUNT: 'AC01',
  ACCOUNT_CANNOT_RECEIVE: 'AC04',
  ACCOUNT_INVALID: 'AC14',
  COMPLIANCE_REJECTED: 'RR01',
  INSUFFICIENT_BALANCE: 'AM04',
  LIMIT_EXCEEDED: 'AM02',
  COUNTERPARTY_POST_TX_FAILED: 'MS03',
};

export function bankReasonCode(reason: OutgoingFailureReason): string {
  return CODES[reason] ?? 'NARR';
}
