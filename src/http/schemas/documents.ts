import { Type } from '@sinclair/typebox';
import { DOCUMENT_SIDES, DOCUMENT_TYPES } from '../../domain/documents.ts';
import { PageQuery, StringEnum, Timestamp } from './common.ts';

/*
 * Uploads are multipart/form-data and are read field by field as they stream in (see routes/documents.ts
 * and domain/documents.ts), so no body schema validates them; these describe the JSON answers.
 */

export const Document = Type.Object(
  {
    id: Type.String(),
    documentHolder: Type.String(),
    documentType: StringEnum(DOCUMENT_TYPES),
    country: Type.String(),
    fileName: Type.String(),
    side: Type.Optional(StringEnum(DOCUMENT_SIDES)),
    documentNumber: Type.Optional(Type.String()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false },
);

export const DocumentListQuery = Type.Object({
  ...PageQuery,
  documentHolder: Type.Optional(Type.String({ maxLength: 200 })),
});

/** The download answers the stored bytes themselves, with their content type. */
export const DocumentFile = Type.Unsafe<unknown>({
  type: 'string',
  format: 'binary',
  description: 'application/pdf, image/jpeg or image/png',
});
