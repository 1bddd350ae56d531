/**
 * Where this service knowingly answers otherwise than the newest public contract, and why. Each entry
 * matches violations reported by ./contract.ts; docs/contract.md lists the same disagreements for
 * people. The specification binds where it and the contract disagree (DESIGN §2).
 */
export interface Disagreement {
  /** Matches the violation text (`METHOD path status: /field message`). */
  pattern: RegExp;
  why: string;
}

export const DISAGREEMENTS: Disagreement[] = [
  {
    pattern:
      /accountInfo\/accountType must be .* \(got "(US_ACCOUNT|CLABE|PIX|IBAN|IBAN_ACCOUNT|UPI|LIGHTNING_ACCOUNT)"\)/,
    why: "the specification's account type names, kept for accounts registered with them",
  },
  {
    pattern: /accountInfo\/beneficiary must have required property 'countryOfResidence'/,
    why: 'the specification does not require countryOfResidence; an account registered without it echoes none',
  },
  {
    pattern: /^(GET|POST) \/platform\/external-accounts(\/\{id\})? 20[01]: \/(data\/\*\/)?customerId must be string/,
    why: 'the specification gives platform accounts customerId: null',
  },
  {
    pattern:
      /failureReason must be equal to one of the allowed values \(got "(INVALID_BANK_ACCOUNT|INSUFFICIENT_BALANCE)"\)/,
    why: "failure reasons from the specification's list that the contract's enum lacks",
  },
  {
    pattern: /^POST \/quotes 201: \/destination\/destinationType .* \(got "EXTERNAL_ACCOUNT_DETAILS"\)/,
    why: 'the specification (and the 2026-03 contract) have inline account details as a quote destination',
  },
  {
    pattern: /^webhook LEGACY (OUTGOING_PAYMENT|INCOMING_PAYMENT|INVITATION_CLAIMED|KYC_STATUS|ACCOUNT_STATUS|TEST): /,
    why: "the LEGACY envelope (the default) is the specification's: {id, type, timestamp, transaction | …}",
  },
];

export const explained = (violation: string): boolean => DISAGREEMENTS.some((d) => d.pattern.test(violation));
