import { sandboxSuffix } from '../domain/account-types.ts';
import { FALLBACK_FAILURE_REASON, type FailureReason } from '../domain/failure-reasons.ts';
import type { RefundReason } from '../domain/transactions.ts';
import type { SandboxTestReceiver } from '../domain/uma-receivers.ts';

/**
 * What the rail does with a transaction once it is processing. The sandbox picks it from the last three
 * digits of the destination's (or, for pulls, the source's) primary identifier; the production connector
 * answers MANUAL: an operator settles or fails it.
 */
export type Outcome =
  | { kind: 'COMPLETE' }
  | { kind: 'COMPLETE_AFTER'; delayMs: number }
  | { kind: 'FAIL'; reason: FailureReason; refund: 'COMPLETED' | 'FAILED'; refundReason: RefundReason }
  | { kind: 'FAIL_AFTER'; delayMs: number; reason: FailureReason; refundReason: RefundReason }
  | { kind: 'COMPLETE_THEN_RETURN'; returnAfterMs: number; reason: FailureReason }
  | { kind: 'MANUAL' }
  /** Handed to a connector that calls out (rails/connector.ts), named as CONNECTORS_FILE names it. */
  | { kind: 'CONNECTOR'; connector: string };

export const THIRTY_SECONDS = 30_000;
export const SIX_MINUTES = 6 * 60_000;

const complete: Outcome = { kind: 'COMPLETE' };
const fail = (reason: FailureReason, refundReason: RefundReason = 'TRANSACTION_FAILED'): Outcome => ({
  kind: 'FAIL',
  reason,
  refund: 'COMPLETED',
  refundReason,
});

/**
 * Transfers without a quote (push out or pull in), specification "Sandbox test patterns". Failure reasons
 * are public values only (domain/failure-reasons.ts): INSUFFICIENT_BALANCE and INVALID_BANK_ACCOUNT from
 * the specification's lifecycle guidance; a rail that times out gets the contract's coarse fallback, and
 * its refund says TIMEOUT.
 */
export const TRANSFER_OUTCOMES: Readonly<Record<string, Outcome>> = {
  '002': fail('INSUFFICIENT_BALANCE'),
  '003': fail('INVALID_BANK_ACCOUNT'),
  '004': fail('COUNTERPARTY_POST_TX_FAILED'),
  '005': { kind: 'FAIL_AFTER', delayMs: THIRTY_SECONDS, reason: FALLBACK_FAILURE_REASON, refundReason: 'TIMEOUT' },
};

/**
 * Pulls from an external account (transfer-in): the same table, but a payment coming in fails with an
 * incoming reason: the bank refusing the pull, or the pull timing out, is a collection that failed.
 */
export const TRANSFER_IN_OUTCOMES: Readonly<Record<string, Outcome>> = {
  ...TRANSFER_OUTCOMES,
  '004': fail('COLLECTION_FAILED'),
  '005': { kind: 'FAIL_AFTER', delayMs: THIRTY_SECONDS, reason: 'COLLECTION_FAILED', refundReason: 'TIMEOUT' },
};

/** Quotes to an external account (pre-created or inline), after execution. */
export const QUOTE_OUTCOMES: Readonly<Record<string, Outcome>> = {
  '002': fail('QUOTE_EXECUTION_FAILED'),
  '003': { kind: 'COMPLETE_AFTER', delayMs: SIX_MINUTES },
  '004': fail('COUNTERPARTY_POST_TX_FAILED'),
  '005': { kind: 'COMPLETE_THEN_RETURN', returnAfterMs: THIRTY_SECONDS, reason: 'PAYOUT_RETURNED' },
  // No public failure reason names a user's cancellation: the fallback, with the refund saying why.
  '006': fail(FALLBACK_FAILURE_REASON, 'USER_CANCELLATION'),
  // The payout fails and so does the refund: the money stays in the in-flight account for an operator.
  '007': { kind: 'FAIL', reason: 'COUNTERPARTY_POST_TX_FAILED', refund: 'FAILED', refundReason: 'TRANSACTION_FAILED' },
};

/** Sandbox UMA test addresses (facts §8): the local part names the behaviour. */
export function umaOutcome(receiver: SandboxTestReceiver): Outcome {
  if (receiver.behaviour === 'PENDING_LONG') return { kind: 'COMPLETE_AFTER', delayMs: SIX_MINUTES };
  if (receiver.behaviour === 'FAIL_COMPLIANCE') return fail('COMPLIANCE_REJECTED');
  return complete;
}

export function transferOutcome(identifier: string, direction: 'OUT' | 'IN'): Outcome {
  return (direction === 'OUT' ? TRANSFER_OUTCOMES : TRANSFER_IN_OUTCOMES)[sandboxSuffix(identifier)] ?? complete;
}

export function quoteOutcome(identifier: string): Outcome {
  return QUOTE_OUTCOMES[sandboxSuffix(identifier)] ?? complete;
}
