// What the fake bank does with each payment of a pain.001: the sandbox's own outcome for the creditor's
// account number (rails/sandbox-outcomes.ts, the table the sandbox rail reads, by the last three digits), said
// the way a bank says it. Pure: the bank (bank.ts) writes the files.
import {
  OUTGOING_FAILURE_REASONS,
  type FailureReason,
  type OutgoingFailureReason,
} from '../../domain/failure-reasons.ts';
import { quoteOutcome, transferOutcome, type Outcome } from '../../rails/sandbox-outcomes.ts';
import { bankReasonCode } from '../../domain/bank-reasons.ts';

/**
 * Which of the sandbox's tables the bank answers by. 'transfer-out' (POST /transfer-out's: 002, 003 and 004
 * rejected, 005 accepted then rejected later) is the default; 'quote' is the table of quotes paid to an
 * external account (003 booked later, 005 booked then returned, …). A bank cannot tell which of the two a
 * payment came from, so the operator of the fake bank says.
 */
export type FakeBankRules = 'transfer-out' | 'quote';
export const FAKE_BANK_RULES: readonly FakeBankRules[] = ['transfer-out', 'quote'];

/** The status a pain.002 gives a payment now. */
export type TxStatus = 'ACSC' | 'ACSP' | 'RJCT';

/** What the bank sends later, and after how long. */
export type Later =
  | { what: 'BOOK'; afterMs: number }
  | { what: 'REJECT'; afterMs: number; code: string }
  | { what: 'RETURN'; afterMs: number; code: string };

export interface Fate {
  status: TxStatus;
  /** The reason code of a rejection. */
  code?: string | undefined;
  /** The debit is booked at once (a camt.054 DBIT BOOK entry with the answer). */
  bookNow: boolean;
  later?: Later | undefined;
}

export interface FateTimes {
  /** Overrides the table's delay for payments booked or rejected later. */
  delayMs?: number | undefined;
  /** Overrides the table's delay before a booked payment is returned. */
  returnAfterMs?: number | undefined;
}

/** The code a return carries: ClosedAccountNumber, the commonest reason a creditor's bank sends money back. */
export const RETURN_CODE = 'AC04';

function isOutgoing(reason: FailureReason): reason is OutgoingFailureReason {
  return (OUTGOING_FAILURE_REASONS as readonly string[]).includes(reason);
}

/** A code the service maps back to the same public reason (an incoming-only reason has none: Narrative). */
function codeOf(reason: FailureReason): string {
  return isOutgoing(reason) ? bankReasonCode(reason) : 'NARR';
}

/** The bank's answer for an outcome of the sandbox's tables. */
export function fateOfOutcome(outcome: Outcome, times: FateTimes = {}): Fate {
  switch (outcome.kind) {
    case 'FAIL':
      return { status: 'RJCT', code: codeOf(outcome.reason), bookNow: false };
    case 'FAIL_AFTER':
      return {
        status: 'ACSP',
        bookNow: false,
        later: { what: 'REJECT', afterMs: times.delayMs ?? outcome.delayMs, code: codeOf(outcome.reason) },
      };
    case 'COMPLETE_AFTER':
      return { status: 'ACSP', bookNow: false, later: { what: 'BOOK', afterMs: times.delayMs ?? outcome.delayMs } };
    case 'COMPLETE_THEN_RETURN':
      return {
        status: 'ACSC',
        bookNow: true,
        later: { what: 'RETURN', afterMs: times.returnAfterMs ?? outcome.returnAfterMs, code: RETURN_CODE },
      };
    default:
      return { status: 'ACSC', bookNow: true };
  }
}

/** The fate of a payment to this creditor account (an IBAN or another account number). */
export function fateOf(creditorAccount: string, rules: FakeBankRules, times: FateTimes = {}): Fate {
  const outcome = rules === 'quote' ? quoteOutcome(creditorAccount) : transferOutcome(creditorAccount, 'OUT');
  return fateOfOutcome(outcome, times);
}
