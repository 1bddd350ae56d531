import { Type } from '@sinclair/typebox';
import { Currency, PageQuery, SortOrder } from './common.ts';
import { component } from './component.ts';
import { MXN } from './examples.ts';

export const UmaProvider = component(
  'UmaProvider',
  Type.Object(
    {
      name: Type.String(),
      domain: Type.String(),
      supportedRegions: Type.Array(Type.String()),
      supportedCurrencies: Type.Array(Currency),
      allowListStatus: Type.Boolean(),
    },
    { additionalProperties: false },
  ),
  {
    name: 'Example Wallet',
    domain: 'wallet.example',
    supportedRegions: ['MX'],
    supportedCurrencies: [MXN],
    allowListStatus: true,
  },
);

export const UmaProviderQuery = Type.Object({
  ...PageQuery,
  countryCode: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$' })),
  currencyCode: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3,5}$' })),
  hasBlockedProviders: Type.Optional(Type.Boolean()),
  sortOrder: Type.Optional(SortOrder),
});
