import { invalidInput } from './errors.ts';
import { isCountryCode } from './countries.ts';

export const DOCUMENT_TYPES = [
  'PASSPORT',
  'DRIVERS_LICENSE',
  'NATIONAL_ID',
  'PROOF_OF_ADDRESS',
  'BANK_STATEMENT',
  'TAX_RETURN',
  'CERTIFICATE_OF_INCORPORATION',
  'ARTICLES_OF_INCORPORATION',
  'ARTICLES_OF_ASSOCIATION',
  'STATE_REGISTRY_EXCERPT',
  'GOOD_STANDING_CERTIFICATE',
  'INFORMATION_STATEMENT',
  'INCUMBENCY_CERTIFICATE',
  'BUSINESS_LICENSE',
  'SHAREHOLDER_REGISTER',
  'POWER_OF_ATTORNEY',
  'UTILITY_BILL',
  'SELFIE',
  'OTHER',
] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

export const DOCUMENT_SIDES = ['FRONT', 'BACK'] as const;
export type DocumentSide = (typeof DOCUMENT_SIDES)[number];

/** 10 MB, counted in bytes as 10 × 1024 × 1024: exactly this much is accepted, one byte more is not. */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

export type DocumentContentType = 'application/pdf' | 'image/jpeg' | 'image/png';

/** The leading bytes that identify each accepted format; the name and the declared type are never trusted. */
const SIGNATURES: ReadonlyArray<[Buffer, DocumentContentType]> = [
  [Buffer.from('%PDF-', 'latin1'), 'application/pdf'],
  [Buffer.from([0xff, 0xd8, 0xff]), 'image/jpeg'],
  [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), 'image/png'],
];

/** How many leading bytes sniffContentType needs. */
export const SNIFF_BYTES = Math.max(...SIGNATURES.map(([magic]) => magic.length));

export function sniffContentType(head: Buffer): DocumentContentType | undefined {
  return SIGNATURES.find(([magic]) => head.length >= magic.length && head.subarray(0, magic.length).equals(magic))?.[1];
}

/** The text fields of an upload (POST) or a replacement (PUT, which has no documentHolder). */
export interface DocumentFields {
  documentType: DocumentType;
  country: string;
  documentHolder?: string;
  side?: DocumentSide;
  documentNumber?: string;
}

const TEXT_FIELDS = ['documentType', 'country', 'documentHolder', 'side', 'documentNumber'] as const;
const MAX_FIELD_LENGTH = 255;

/**
 * Checks the multipart text fields (which arrive as plain strings, outside any JSON schema) and returns
 * them typed. Unknown field names are refused so a typo is not silently dropped.
 */
export function parseDocumentFields(raw: Readonly<Record<string, string>>, mode: 'upload' | 'replace'): DocumentFields {
  for (const name of Object.keys(raw)) {
    if (!(TEXT_FIELDS as readonly string[]).includes(name) || (mode === 'replace' && name === 'documentHolder')) {
      throw invalidInput(name, `${name} is not a field of this request`, 'unknownField');
    }
    if (raw[name]!.length > MAX_FIELD_LENGTH)
      throw invalidInput(name, `${name} is longer than ${MAX_FIELD_LENGTH} characters`, 'maxLength');
  }
  const { documentType, country, documentHolder, side, documentNumber } = raw;
  if (documentType === undefined) throw invalidInput('documentType', 'documentType is required', 'required');
  if (!(DOCUMENT_TYPES as readonly string[]).includes(documentType)) {
    throw invalidInput('documentType', `documentType must be one of ${DOCUMENT_TYPES.join(', ')}`, 'enum');
  }
  if (country === undefined) throw invalidInput('country', 'country is required', 'required');
  if (!isCountryCode(country))
    throw invalidInput('country', 'country must be an ISO 3166-1 alpha-2 country code', 'country');
  if (mode === 'upload' && (documentHolder === undefined || documentHolder === '')) {
    throw invalidInput('documentHolder', 'documentHolder is required (a Customer or BeneficialOwner id)', 'required');
  }
  if (side !== undefined && !(DOCUMENT_SIDES as readonly string[]).includes(side))
    throw invalidInput('side', 'side must be FRONT or BACK', 'enum');
  if (documentNumber !== undefined && documentNumber.trim() === '')
    throw invalidInput('documentNumber', 'documentNumber must not be empty', 'minLength');
  const fields: DocumentFields = { documentType: documentType as DocumentType, country };
  if (mode === 'upload' && documentHolder !== undefined) fields.documentHolder = documentHolder;
  if (side !== undefined) fields.side = side as DocumentSide;
  if (documentNumber !== undefined) fields.documentNumber = documentNumber;
  return fields;
}

/** The original name without any folder part (a browser may send `C:\\fakepath\\scan.pdf`), bounded in length. */
export function cleanFileName(name: string | undefined): string {
  const base = (name ?? '')
    .split(/[\\/]/)
    .pop()!
    // oxlint-disable-next-line no-control-regex -- removing control characters is the point
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim();
  return (base || 'document').slice(0, MAX_FIELD_LENGTH);
}
