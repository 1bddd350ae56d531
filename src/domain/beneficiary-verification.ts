/**
 * Beneficiary name verification at account creation: the sandbox's outcome table (chosen by the
 * primary identifier's suffix, specification "Sandbox test patterns") and what production answers.
 * Pure: the service asks, then stores or refuses.
 */
import { AppError } from './errors.ts';
import { sandboxSuffix } from './account-types.ts';

export const VERIFICATION_STATUSES = [
  'MATCHED',
  'PARTIAL_MATCH',
  'NOT_MATCHED',
  'UNSUPPORTED',
  'CHECKED_BY_RECEIVING_FI',
  'PENDING',
] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

export interface Verification {
  status: VerificationStatus;
  /** The holder's name as the rail returned it; absent when the rail returned none. */
  verifiedName?: string;
}

type Outcome = { status: VerificationStatus } | { error: () => AppError };

/** Suffix → outcome. Anything not listed (including '') is MATCHED. */
export const SANDBOX_VERIFICATION: Readonly<Record<string, Outcome>> = {
  '102': { status: 'NOT_MATCHED' },
  '103': { status: 'PARTIAL_MATCH' },
  '104': { status: 'PENDING' },
  '105': {
    error: () =>
      new AppError(
        'INVALID_BANK_ACCOUNT',
        'The receiving institution reports this account as invalid (sandbox suffix 105)',
        { field: 'accountInfo', rule: 'sandbox:105' },
      ),
  },
  '106': { status: 'UNSUPPORTED' },
  '107': { status: 'CHECKED_BY_RECEIVING_FI' },
  '109': {
    error: () =>
      new AppError(
        'GRID_SWITCH_ERROR',
        'Simulated sandbox API error (sandbox suffix 109); nothing was created, retry with another identifier',
      ),
  },
};

/** A name that is plainly someone else's; the second one is used if the beneficiary happens to be the first. */
const OTHER_HOLDERS = ['MARIA FERNANDA OLIVEIRA', 'JAMES PATRICK WALSH'] as const;

/** How a rail spells the holder's name for each name-comparing status (upper-case, as bank rails return it). */
function railName(status: VerificationStatus, name: string): string | undefined {
  const upper = name.trim().toUpperCase();
  switch (status) {
    case 'MATCHED':
      return upper;
    case 'PARTIAL_MATCH':
      // A near spelling: the last letter doubled ("JANE DOE" → "JANE DOEE"), as a typo at the bank would show.
      return upper + upper.slice(-1);
    case 'NOT_MATCHED':
      return upper === OTHER_HOLDERS[0] ? OTHER_HOLDERS[1] : OTHER_HOLDERS[0];
    default:
      return undefined;
  }
}

/**
 * The verification result for a new account, or a thrown AppError for the sandbox's error suffixes
 * (105 → 400 INVALID_BANK_ACCOUNT, 109 → 500 GRID_SWITCH_ERROR), which the caller lets escape so that
 * nothing is stored.
 *
 * - Sandbox: the suffix table above, row for row, whatever the account type: every outcome of the
 *   specification's table holds for wallets, Lightning and platform accounts without a beneficiary too.
 *   Only the verified name needs a name to spell: without one, none is returned.
 * - Production: the default connector has no name-check service, so it says so: UNSUPPORTED.
 */
export function verifyBeneficiary(
  environment: 'sandbox' | 'production',
  primaryIdentifier: string,
  beneficiaryName: string | null,
): Verification {
  if (environment === 'production') return { status: 'UNSUPPORTED' };
  const outcome = SANDBOX_VERIFICATION[sandboxSuffix(primaryIdentifier)] ?? { status: 'MATCHED' };
  if ('error' in outcome) throw outcome.error();
  if (beneficiaryName === null) return { status: outcome.status };
  const verifiedName = railName(outcome.status, beneficiaryName);
  return verifiedName === undefined ? { status: outcome.status } : { status: outcome.status, verifiedName };
}
