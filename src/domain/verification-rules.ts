import type { Environment } from './environments.ts';
import type { DocumentType } from './documents.ts';
import { sandboxKyb, type ReviewStatus } from './kyc.ts';

/*
 * What a customer must provide before a verification can go to review, and what the review decides.
 * Pure: the verification service gathers the facts (profile, documents, beneficial owners) and writes
 * the result; everything in between is here.
 */

export const VERIFICATION_STATUSES = [
  'RESOLVE_ERRORS',
  'PENDING_MANUAL_REVIEW',
  'IN_PROGRESS',
  'APPROVED',
  'REJECTED',
  'READY_FOR_VERIFICATION',
] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

export const VERIFICATION_ERROR_TYPES = [
  'MISSING_FIELD',
  'INVALID_FIELD',
  'MISSING_LEGAL_PRESENCE_DOCUMENT',
  'MISSING_CONTROL_STRUCTURE_DOCUMENT',
  'MISSING_OWNERSHIP_STRUCTURE_DOCUMENT',
  'MISSING_PROOF_OF_ADDRESS_DOCUMENT',
  'MISSING_IDENTITY_DOCUMENT',
  'INVALID_DOCUMENT',
  'EXPIRED_DOCUMENT',
  'POOR_QUALITY_DOCUMENT',
  'SUSPECTED_FRAUD_DOCUMENT',
  'WRONG_DOCUMENT_TYPE',
  'INCOMPLETE_DOCUMENT',
  'UNREADABLE_DOCUMENT',
  'DOCUMENT_VERIFICATION_FAILED',
  'APPLICANT_SANCTIONED',
  'APPLICANT_FRAUD',
  'APPLICANT_CRIMINAL_RECORD',
  'APPLICANT_REJECTED',
  'MISSING_BENEFICIAL_OWNER',
] as const;
export type VerificationErrorType = (typeof VERIFICATION_ERROR_TYPES)[number];

export interface VerificationError {
  /** The customer or beneficial owner the problem is about. */
  resourceId: string;
  type: VerificationErrorType;
  reason: string;
  field?: string;
  acceptedDocumentTypes?: DocumentType[];
}

type Category = 'IDENTITY' | 'PROOF_OF_ADDRESS' | 'LEGAL_PRESENCE' | 'CONTROL_STRUCTURE' | 'OWNERSHIP_STRUCTURE';

/**
 * Document categories and the types that satisfy each. One document can count for several categories
 * (a state registry excerpt shows legal presence, company details, control and ownership). Proof of
 * address also takes a utility bill or a bank statement, which are what people usually have.
 */
export const DOCUMENT_CATEGORIES: Readonly<
  Record<Category, { error: VerificationErrorType; what: string; accepted: readonly DocumentType[] }>
> = {
  IDENTITY: {
    error: 'MISSING_IDENTITY_DOCUMENT',
    what: 'an identity document',
    accepted: ['PASSPORT', 'DRIVERS_LICENSE', 'NATIONAL_ID'],
  },
  PROOF_OF_ADDRESS: {
    error: 'MISSING_PROOF_OF_ADDRESS_DOCUMENT',
    what: 'a proof of address',
    accepted: ['PROOF_OF_ADDRESS', 'UTILITY_BILL', 'BANK_STATEMENT'],
  },
  LEGAL_PRESENCE: {
    error: 'MISSING_LEGAL_PRESENCE_DOCUMENT',
    what: 'a document showing the business legally exists',
    accepted: [
      'CERTIFICATE_OF_INCORPORATION',
      'ARTICLES_OF_INCORPORATION',
      'ARTICLES_OF_ASSOCIATION',
      'STATE_REGISTRY_EXCERPT',
    ],
  },
  CONTROL_STRUCTURE: {
    error: 'MISSING_CONTROL_STRUCTURE_DOCUMENT',
    what: 'a document showing who controls the business',
    accepted: [
      'ARTICLES_OF_INCORPORATION',
      'ARTICLES_OF_ASSOCIATION',
      'INCUMBENCY_CERTIFICATE',
      'INFORMATION_STATEMENT',
      'STATE_REGISTRY_EXCERPT',
    ],
  },
  OWNERSHIP_STRUCTURE: {
    error: 'MISSING_OWNERSHIP_STRUCTURE_DOCUMENT',
    what: 'a document showing who owns the business',
    accepted: [
      'SHAREHOLDER_REGISTER',
      'INFORMATION_STATEMENT',
      'INCUMBENCY_CERTIFICATE',
      'STATE_REGISTRY_EXCERPT',
      'ARTICLES_OF_INCORPORATION',
      'ARTICLES_OF_ASSOCIATION',
    ],
  },
};

const INDIVIDUAL_DOCUMENTS: readonly Category[] = ['IDENTITY', 'PROOF_OF_ADDRESS'];
const BUSINESS_DOCUMENTS: readonly Category[] = [
  'LEGAL_PRESENCE',
  'CONTROL_STRUCTURE',
  'OWNERSHIP_STRUCTURE',
  'PROOF_OF_ADDRESS',
];
const OWNER_DOCUMENTS: readonly Category[] = ['IDENTITY'];

/** Fields a review needs, as paths into the customer's profile. */
const INDIVIDUAL_FIELDS = ['fullName', 'birthDate', 'nationality', 'address'] as const;
const BUSINESS_FIELDS = [
  'businessInfo.legalName',
  'businessInfo.registrationNumber',
  'businessInfo.country',
  'address',
] as const;

export interface ApplicantFacts {
  id: string;
  customerType: 'INDIVIDUAL' | 'BUSINESS';
  profile: Record<string, unknown>;
  /** Types of the documents held by the customer itself. */
  documentTypes: readonly string[];
}

export interface OwnerFacts {
  id: string;
  kycStatus: ReviewStatus;
  documentTypes: readonly string[];
}

function valueAt(profile: Record<string, unknown>, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>(
      (obj, key) => (obj && typeof obj === 'object' ? (obj as Record<string, unknown>)[key] : undefined),
      profile,
    );
}

function missingDocuments(
  resourceId: string,
  held: readonly string[],
  categories: readonly Category[],
): VerificationError[] {
  return categories.flatMap((category) => {
    const rule = DOCUMENT_CATEGORIES[category];
    if (rule.accepted.some((type) => held.includes(type))) return [];
    return [
      {
        resourceId,
        type: rule.error,
        reason: `Upload ${rule.what} (one of ${rule.accepted.join(', ')})`,
        acceptedDocumentTypes: [...rule.accepted],
      },
    ];
  });
}

/** Everything that keeps the customer from review, in a stable order: fields, documents, then owners. */
export function findVerificationErrors(applicant: ApplicantFacts, owners: readonly OwnerFacts[]): VerificationError[] {
  const business = applicant.customerType === 'BUSINESS';
  const fields = business ? BUSINESS_FIELDS : INDIVIDUAL_FIELDS;
  const errors: VerificationError[] = fields
    .filter((field) => {
      const value = valueAt(applicant.profile, field);
      return value === undefined || value === null || value === '';
    })
    .map((field) => ({
      resourceId: applicant.id,
      type: 'MISSING_FIELD',
      field,
      reason: `${field} is required for verification`,
    }));
  errors.push(
    ...missingDocuments(applicant.id, applicant.documentTypes, business ? BUSINESS_DOCUMENTS : INDIVIDUAL_DOCUMENTS),
  );
  if (!business) return errors;
  if (owners.length === 0) {
    errors.push({
      resourceId: applicant.id,
      type: 'MISSING_BENEFICIAL_OWNER',
      reason: 'Add at least one beneficial owner (POST /beneficial-owners)',
    });
  }
  for (const owner of owners) {
    errors.push(...missingDocuments(owner.id, owner.documentTypes, OWNER_DOCUMENTS));
    if (owner.kycStatus === 'REJECTED') {
      errors.push({
        resourceId: owner.id,
        type: 'APPLICANT_REJECTED',
        reason: 'This beneficial owner failed KYC; correct or replace them',
      });
    }
  }
  return errors;
}

export interface VerificationDecision {
  verificationStatus: VerificationStatus;
  /** The customer's kycStatus / kybStatus after this verification; undefined leaves it unchanged. */
  customerStatus?: ReviewStatus;
}

/**
 * What a submitted verification ends as. With errors nothing is reviewed and the customer's status stays.
 * Production has no automatic reviewer: a complete submission waits in PENDING_MANUAL_REVIEW. The sandbox
 * approves individuals and decides businesses by the registration number's suffix.
 */
export function decideVerification(
  environment: Environment,
  applicant: ApplicantFacts,
  errors: readonly VerificationError[],
): VerificationDecision {
  if (errors.length > 0) return { verificationStatus: 'RESOLVE_ERRORS' };
  if (environment === 'production') return { verificationStatus: 'PENDING_MANUAL_REVIEW', customerStatus: 'PENDING' };
  const outcome =
    applicant.customerType === 'BUSINESS'
      ? sandboxKyb(valueAt(applicant.profile, 'businessInfo.registrationNumber') as string | undefined)
      : 'APPROVED';
  const verificationStatus: Record<ReviewStatus, VerificationStatus> = {
    PENDING: 'PENDING_MANUAL_REVIEW',
    APPROVED: 'APPROVED',
    REJECTED: 'REJECTED',
  };
  return { verificationStatus: verificationStatus[outcome], customerStatus: outcome };
}
