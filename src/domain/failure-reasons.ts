// The failureReason values a transaction may carry: the specification's lists (with the two its lifecycle
// guidance adds) and the values the newest public contract adds. Nothing else is ever sent, so a client
// generated from the contract can decode every failed transaction.

export const OUTGOING_FAILURE_REASONS = [
  // The specification's list and its lifecycle guidance.
  'QUOTE_EXPIRED',
  'QUOTE_EXECUTION_FAILED',
  'LIGHTNING_PAYMENT_FAILED',
  'FUNDING_AMOUNT_MISMATCH',
  'COUNTERPARTY_POST_TX_FAILED',
  'INVALID_BANK_ACCOUNT',
  'INSUFFICIENT_BALANCE',
  // Added by the 2026-08 contract: granular payout reasons.
  'QUOTE_RATE_UNAVAILABLE',
  'SCA_NOT_COMPLETED',
  'PAYOUT_RETURNED',
  'LIMIT_EXCEEDED',
  'ACCOUNT_CANNOT_RECEIVE',
  'ACCOUNT_INVALID',
  'COMPLIANCE_REJECTED',
] as const;

export const INCOMING_FAILURE_REASONS = [
  'LNURLP_FAILED',
  'PAY_REQUEST_FAILED',
  'PAYMENT_APPROVAL_WEBHOOK_ERROR',
  'PAYMENT_APPROVAL_TIMED_OUT',
  'OFFRAMP_FAILED',
  'MISSING_MANDATORY_PAYEE_DATA',
  'QUOTE_EXPIRED',
  'QUOTE_EXECUTION_FAILED',
  // Added by the 2026-08 contract.
  'COMPLIANCE_REJECTED',
  'COLLECTION_FAILED',
] as const;

export type OutgoingFailureReason = (typeof OUTGOING_FAILURE_REASONS)[number];
export type IncomingFailureReason = (typeof INCOMING_FAILURE_REASONS)[number];
export type FailureReason = OutgoingFailureReason | IncomingFailureReason;

export const FAILURE_REASONS: readonly FailureReason[] = [
  ...new Set<FailureReason>([...OUTGOING_FAILURE_REASONS, ...INCOMING_FAILURE_REASONS]),
];

export function isFailureReason(value: string): value is FailureReason {
  return (FAILURE_REASONS as readonly string[]).includes(value);
}

/**
 * The coarse fallback for a failure no granular value describes (a rail timing out, a user cancelling a
 * payment): the contract reserves COUNTERPARTY_POST_TX_FAILED for that. The refund's own reason
 * (TIMEOUT, USER_CANCELLATION) still says precisely what happened.
 */
export const FALLBACK_FAILURE_REASON: OutgoingFailureReason = 'COUNTERPARTY_POST_TX_FAILED';
