import { Type } from '@sinclair/typebox';
import { PageQuery, RequestObject, StringEnum, Timestamp } from './common.ts';
import { component } from './component.ts';
import { EXAMPLE } from './examples.ts';

export const Permission = StringEnum(['VIEW', 'TRANSACT', 'MANAGE']);

export const ApiToken = component(
  'ApiToken',
  Type.Object({
    id: Type.String(),
    name: Type.String(),
    permissions: Type.Array(Permission),
    clientId: Type.String(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    clientSecret: Type.Optional(Type.String({ description: 'Returned once, at creation' })),
  }),
  {
    id: 'Token:019a2f4e-7c1d-7b3a-9f0e-5d8c6b4a3e29',
    name: 'reporting',
    permissions: ['VIEW'],
    clientId: 'Token:019a2f4e-7c1d-7b3a-9f0e-5d8c6b4a3e29',
    createdAt: EXAMPLE.createdAt,
    updatedAt: EXAMPLE.createdAt,
  },
);

export const TokenCreate = component(
  'TokenCreateRequest',
  RequestObject({
    name: Type.String({ minLength: 1, maxLength: 255 }),
    permissions: Type.Array(Permission, { minItems: 1, uniqueItems: true }),
  }),
  { name: 'reporting', permissions: ['VIEW'] },
);

export const TokenListQuery = Type.Object({
  ...PageQuery,
  name: Type.Optional(Type.String()),
  createdAfter: Type.Optional(Timestamp),
  createdBefore: Type.Optional(Timestamp),
  updatedAfter: Type.Optional(Timestamp),
  updatedBefore: Type.Optional(Timestamp),
});
