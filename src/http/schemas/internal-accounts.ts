import { Type } from '@sinclair/typebox';
import { CurrencyAmount, CurrencyCode, PageQuery, PositiveAmount, StringEnum, Timestamp } from './common.ts';

export const InternalAccount = Type.Object(
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
);

export const CustomerInternalAccountQuery = Type.Object({
  ...PageQuery,
  currency: Type.Optional(CurrencyCode),
  customerId: Type.Optional(Type.String()),
});

export const PlatformInternalAccountQuery = Type.Object({ currency: Type.Optional(CurrencyCode) });

export const SandboxFund = Type.Object({ amount: PositiveAmount });
