import { Type } from '@sinclair/typebox';
import { DOCUMENT_TYPES } from '../../domain/documents.ts';
import { VERIFICATION_ERROR_TYPES, VERIFICATION_STATUSES } from '../../domain/verification-rules.ts';
import { PageQuery, StringEnum, Timestamp } from './common.ts';

export const VerificationStatus = StringEnum(VERIFICATION_STATUSES);

export const VerificationError = Type.Object(
  {
    resourceId: Type.String(),
    type: StringEnum(VERIFICATION_ERROR_TYPES),
    reason: Type.String(),
    field: Type.Optional(Type.String()),
    acceptedDocumentTypes: Type.Optional(Type.Array(StringEnum(DOCUMENT_TYPES))),
  },
  { additionalProperties: false },
);

export const Verification = Type.Object(
  {
    id: Type.String(),
    customerId: Type.String(),
    verificationStatus: VerificationStatus,
    errors: Type.Array(VerificationError),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false },
);

export const VerificationCreate = Type.Object(
  { customerId: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);

export const VerificationListQuery = Type.Object({
  ...PageQuery,
  customerId: Type.Optional(Type.String({ maxLength: 200 })),
  verificationStatus: Type.Optional(VerificationStatus),
});
