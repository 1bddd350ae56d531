/**
 * Sandbox KYC and KYB outcomes, chosen by suffixes the way the sandbox's payment outcomes are: a
 * developer picks the result by how they name the test data. Production never uses these tables.
 */

export type KycStatus = 'UNVERIFIED' | 'PENDING' | 'APPROVED' | 'REJECTED';
/** A finished or running review: what a beneficial owner or a verified customer can be. */
export type ReviewStatus = Exclude<KycStatus, 'UNVERIFIED'>;

const SUFFIX_OUTCOMES: Readonly<Record<string, ReviewStatus>> = { '001': 'PENDING', '002': 'REJECTED' };

function bySuffix(value: string | undefined): ReviewStatus {
  return SUFFIX_OUTCOMES[(value ?? '').slice(-3)] ?? 'APPROVED';
}

/**
 * Beneficial owner KYC by the last three characters of personalInfo.lastName: 001 PENDING, 002 REJECTED, else APPROVED.
 */
export function sandboxOwnerKyc(lastName: string): ReviewStatus {
  return bySuffix(lastName);
}

/**
 * Business KYB by the last three characters of businessInfo.registrationNumber: 001 PENDING, 002 REJECTED, else
 * APPROVED.
 */
export function sandboxKyb(registrationNumber: string | undefined): ReviewStatus {
  return bySuffix(registrationNumber);
}

/**
 * The KYC profile fields of the newest public contract that a customer keeps as given (the service decides
 * nothing on them): stored with the customer, echoed in every answer.
 */
export const KYC_PROFILE_FIELDS = [
  'region',
  'currencies',
  'email',
  'phoneNumber',
  'idType',
  'identifier',
  'countryOfIssuance',
  'pepStatus',
  'annualIncomeRange',
  'netWorthRange',
  'purposeOfAccount',
  'purposeOfAccountOtherDescription',
  'sourceOfFundsCategories',
  'sourceOfFundsOtherDescription',
  'sourceOfWealthCategories',
  'sourceOfWealthOtherDescription',
  'expectedMonthlyTransactionCount',
  'expectedMonthlyTransactionVolume',
  'endUserTermsConsent',
] as const;
