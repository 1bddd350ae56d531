import { Type } from '@sinclair/typebox';
import { DOCUMENT_SIDES, DOCUMENT_TYPES } from '../domain/documents.ts';
import { PageQuery, StringEnum, Timestamp } from './common.ts';
import { component } from './component.ts';
import { EXAMPLE } from './examples.ts';

/*
 * Uploads are multipart/form-data and are read field by field as they stream in (see routes/documents.ts
 * and domain/documents.ts), so no body schema validates them; these describe the JSON answers.
 */

export const Document = component(
  'Document',
  Type.Object(
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
  ),
  {
    id: 'Document:019a2f4e-7c1d-7b3a-9f0e-5d8c6b4a3e27',
    documentHolder: EXAMPLE.customerId,
    documentType: 'PASSPORT',
    country: 'GB',
    fileName: 'passport.pdf',
    documentNumber: '123456789',
    createdAt: EXAMPLE.createdAt,
    updatedAt: EXAMPLE.createdAt,
  },
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
