import { Type } from '@sinclair/typebox';
import { PageQuery, StringEnum, Timestamp } from './common.ts';

export const Permission = StringEnum(['VIEW', 'TRANSACT', 'MANAGE']);

export const ApiToken = Type.Object({
  id: Type.String(),
  name: Type.String(),
  permissions: Type.Array(Permission),
  clientId: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  clientSecret: Type.Optional(Type.String({ description: 'Returned once, at creation' })),
});

export const TokenCreate = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  permissions: Type.Array(Permission, { minItems: 1, uniqueItems: true }),
});

export const TokenListQuery = Type.Object({
  ...PageQuery,
  name: Type.Optional(Type.String()),
  createdAfter: Type.Optional(Timestamp),
  createdBefore: Type.Optional(Timestamp),
  updatedAfter: Type.Optional(Timestamp),
  updatedBefore: Type.Optional(Timestamp),
});
