import { Type } from '@sinclair/typebox';
import { DOCUMENT_TYPES } from '../domain/documents.ts';
import { VERIFICATION_ERROR_TYPES, VERIFICATION_STATUSES } from '../domain/verification-rules.ts';
import { PageQuery, StringEnum, Timestamp } from './common.ts';
import { component } from './component.ts';
import { EXAMPLE } from './examples.ts';

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

export const Verification = component(
  'Verification',
  Type.Object(
    {
      id: Type.String(),
      customerId: Type.String(),
      verificationStatus: VerificationStatus,
      errors: Type.Array(VerificationError),
      createdAt: Timestamp,
      updatedAt: Timestamp,
    },
    { additionalProperties: false },
  ),
  {
    id: 'Verification:019a2f4e-7c1d-7b3a-9f0e-5d8c6b4a3e2a',
    customerId: EXAMPLE.customerId,
    verificationStatus: 'RESOLVE_ERRORS',
    errors: [
      {
        resourceId: EXAMPLE.customerId,
        type: 'MISSING_FIELD',
        reason: 'address is required',
        field: 'address',
      },
    ],
    createdAt: EXAMPLE.createdAt,
    updatedAt: EXAMPLE.createdAt,
  },
);

export const VerificationCreate = component(
  'VerificationCreateRequest',
  Type.Object({ customerId: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
  { customerId: EXAMPLE.customerId },
);

export const VerificationListQuery = Type.Object({
  ...PageQuery,
  customerId: Type.Optional(Type.String({ maxLength: 200 })),
  verificationStatus: Type.Optional(VerificationStatus),
});
