// The ISO 20022 external status reason codes a bank gives for a payment it rejected (pain.002 StsRsnInf) or
// sent back (camt.054 RtrInf), mapped to the public failure reasons a transaction may carry
// (domain/failure-reasons.ts). The codes are ISO's ExternalStatusReason1Code / ExternalReturnReason1Code
// lists, which share their values; only the ones a payout can meet are named here.
import { FALLBACK_FAILURE_REASON, type OutgoingFailureReason } from './failure-reasons.ts';

/** Each code with the public reason it means for a payout, and ISO's name for it. */
export const BANK_REASON_CODES: Readonly<Record<string, { reason: OutgoingFailureReason; name: string }>> = {
  // The creditor's account: wrong, closed, blocked, or not one that can take this payment.
  AC01: { reason: 'INVALID_BANK_ACCOUNT', name: 'IncorrectAccountNumber' },
  AC03: { reason: 'INVALID_BANK_ACCOUNT', name: 'InvalidCreditorAccountNumber' },
  AC04: { reason: 'ACCOUNT_CANNOT_RECEIVE', name: 'ClosedAccountNumber' },
  AC06: { reason: 'ACCOUNT_CANNOT_RECEIVE', name: 'BlockedAccount' },
  AC14: { reason: 'ACCOUNT_INVALID', name: 'InvalidCreditorAccountType' },
  AG01: { reason: 'ACCOUNT_CANNOT_RECEIVE', name: 'TransactionForbidden' },
  MD07: { reason: 'ACCOUNT_CANNOT_RECEIVE', name: 'EndCustomerDeceased' },
  CNOR: { reason: 'ACCOUNT_CANNOT_RECEIVE', name: 'CreditorBankIsNotRegistered' },
  // The creditor's identity: a name, address or bank code the bank cannot use.
  BE01: { reason: 'ACCOUNT_INVALID', name: 'InconsistentWithEndCustomer' },
  BE04: { reason: 'ACCOUNT_INVALID', name: 'MissingCreditorAddress' },
  RC01: { reason: 'ACCOUNT_INVALID', name: 'BankIdentifierIncorrect' },
  RR01: { reason: 'COMPLIANCE_REJECTED', name: 'MissingDebtorAccountOrIdentification' },
  RR02: { reason: 'COMPLIANCE_REJECTED', name: 'MissingDebtorNameOrAddress' },
  RR03: { reason: 'COMPLIANCE_REJECTED', name: 'MissingCreditorNameOrAddress' },
  RR04: { reason: 'COMPLIANCE_REJECTED', name: 'RegulatoryReason' },
  // Money and limits: ours, at our own bank.
  AM04: { reason: 'INSUFFICIENT_BALANCE', name: 'InsufficientFunds' },
  AM02: { reason: 'LIMIT_EXCEEDED', name: 'NotAllowedAmount' },
  AM14: { reason: 'LIMIT_EXCEEDED', name: 'AmountExceedsAgreedLimit' },
  // The file or the bank: nothing the creditor did. The contract's coarse fallback says so.
  MS03: { reason: FALLBACK_FAILURE_REASON, name: 'NotSpecifiedReasonAgentGenerated' },
  AC02: { reason: FALLBACK_FAILURE_REASON, name: 'InvalidDebtorAccountNumber' },
  AM05: { reason: FALLBACK_FAILURE_REASON, name: 'Duplication' },
  DT01: { reason: FALLBACK_FAILURE_REASON, name: 'InvalidDate' },
  FF01: { reason: FALLBACK_FAILURE_REASON, name: 'InvalidFileFormat' },
  MS02: { reason: FALLBACK_FAILURE_REASON, name: 'NotSpecifiedReasonCustomerGenerated' },
  NARR: { reason: FALLBACK_FAILURE_REASON, name: 'Narrative' },
};

/**
 * The public reason for a payment the bank rejected (pain.002 RJCT) with this code. A code not listed here,
 * a proprietary one or none at all says nothing precise: the contract's coarse fallback.
 */
export function rejectionReason(code: string | undefined): OutgoingFailureReason {
  return (code === undefined ? undefined : BANK_REASON_CODES[code]?.reason) ?? FALLBACK_FAILURE_REASON;
}

/**
 * Whether a whole-file rejection refuses a second copy of a file rather than the file's payments: DU01
 * (duplicate message id) and AM05 (duplication). The first copy stands; its payments are not failed.
 */
export function refusesDuplicate(code: string | undefined): boolean {
  return code === 'DU01' || code === 'AM05';
}

/**
 * The public reason for a payment the bank sent back (camt.054 RtrInf): PAYOUT_RETURNED, whatever the code.
 * The money left and came back; that is what the payment's failure says. The bank's code, which says why the
 * creditor's bank sent it, is kept with the bank's event (see bankReasonNote) for the operator.
 */
export function returnReason(_code: string | undefined): OutgoingFailureReason {
  return 'PAYOUT_RETURNED';
}

/** What the bank said, in a line an operator reads: "AC04 ClosedAccountNumber: account closed in 2024". */
export function bankReasonNote(
  reason: { code?: string | undefined; proprietary?: string | undefined; info?: string | undefined } | undefined,
): string | undefined {
  if (!reason) return undefined;
  const code = reason.code ?? reason.proprietary;
  const named = code === undefined ? undefined : [code, BANK_REASON_CODES[code]?.name].filter(Boolean).join(' ');
  const note = [named, reason.info].filter(Boolean).join(': ');
  return note || undefined;
}

/**
 * A code that maps back to this reason, for a bank that must give one (the fake bank rejecting by the
 * sandbox's account-number rules): the first listed, else NARR.
 */
export function bankReasonCode(reason: OutgoingFailureReason): string {
  return Object.entries(BANK_REASON_CODES).find(([, v]) => v.reason === reason)?.[0] ?? 'NARR';
}
