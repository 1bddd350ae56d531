import { Type } from '@sinclair/typebox';
import {
  CurrencyAmount,
  CurrencyCode,
  PageQuery,
  PositiveAmount,
  RequestObject,
  StringEnum,
  Timestamp,
} from './common.ts';
import { component } from './component.ts';
import { EXAMPLE, USD } from './examples.ts';

export const InternalAccount = component(
  'InternalAccount',
  Type.Object(
    {
      id: Type.String(),
      customerId: Type.Optional(Type.String()),
      type: StringEnum(['INTERNAL_FIAT', 'INTERNAL_CRYPTO']),
      status: StringEnum(['ACTIVE']),
      balance: CurrencyAmount,
      totalBalance: CurrencyAmount,
      fundingPaymentInstructions: Type.Array(Type.Object({}, { additionalProperties: true })),
      createdAt: Timestamp,
      updatedAt: Timestamp,
    },
    { additionalProperties: false },
  ),
  {
    id: EXAMPLE.internalAccountId,
    customerId: EXAMPLE.customerId,
    type: 'INTERNAL_FIAT',
    status: 'ACTIVE',
    balance: { amount: 10000, currency: USD },
    totalBalance: { amount: 10000, currency: USD },
    fundingPaymentInstructions: [],
    createdAt: EXAMPLE.createdAt,
    updatedAt: EXAMPLE.updatedAt,
  },
);

export const CustomerInternalAccountQuery = Type.Object({
  ...PageQuery,
  currency: Type.Optional(CurrencyCode),
  customerId: Type.Optional(Type.String()),
});

export const PlatformInternalAccountQuery = Type.Object({ currency: Type.Optional(CurrencyCode) });

export const SandboxFund = component('SandboxFundRequest', RequestObject({ amount: PositiveAmount }), {
  amount: 10000,
});
