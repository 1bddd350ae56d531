import { Type } from '@sinclair/typebox';
import { ACCOUNT_TYPE_NAMES, CRYPTO_NETWORKS, EXTERNAL_ACCOUNT_STATUSES } from '../../domain/account-types.ts';
import { VERIFICATION_STATUSES } from '../../domain/beneficiary-verification.ts';
import { CurrencyCode, PageQuery, StringEnum, Timestamp } from './common.ts';

/*
 * accountInfo is checked field by field by the account-type rule table (src/domain/account-types.ts),
 * the one rule set HTTP and inline quote destinations share; the schema only fixes its envelope.
 */

const PlatformAccountId = Type.String({
  minLength: 1,
  maxLength: 255,
  description: "The platform's own identifier for the account",
});

const OwnershipType = StringEnum(['FIRST_PARTY', 'THIRD_PARTY'], {
  description: "Whether the account is the holder's own (FIRST_PARTY) or someone else's (THIRD_PARTY)",
});

const AccountInfoInput = Type.Object(
  { accountType: Type.String({ minLength: 1, maxLength: 64, description: `One of ${ACCOUNT_TYPE_NAMES.join(', ')}` }) },
  {
    additionalProperties: true,
    description: 'Fields per accountType; a beneficiary object for bank and mobile-money types',
  },
);

export const ExternalAccountCreate = Type.Object({
  customerId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: "Customer:<uuid>; omitted, the account is the platform's",
    }),
  ),
  currency: CurrencyCode,
  platformAccountId: Type.Optional(PlatformAccountId),
  defaultUmaDepositAccount: Type.Optional(Type.Boolean({ description: "Replaces the customer's previous default" })),
  ownershipType: Type.Optional(OwnershipType),
  cryptoNetwork: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: `Required for on-chain wallets: ${CRYPTO_NETWORKS.join(', ')}`,
    }),
  ),
  accountInfo: AccountInfoInput,
});

export const PlatformExternalAccountCreate = Type.Omit(ExternalAccountCreate, [
  'customerId',
  'defaultUmaDepositAccount',
]);

export const ExternalAccount = Type.Object(
  {
    id: Type.String(),
    status: StringEnum(EXTERNAL_ACCOUNT_STATUSES),
    currency: Type.String(),
    accountInfo: Type.Object(
      {
        accountType: StringEnum(ACCOUNT_TYPE_NAMES),
        paymentRails: Type.Optional(Type.Array(Type.String())),
        beneficiary: Type.Optional(
          Type.Object({ beneficiaryType: StringEnum(['INDIVIDUAL', 'BUSINESS']) }, { additionalProperties: true }),
        ),
        // Emitted at the top level only, whichever place the request used.
        platformAccountId: Type.Optional(Type.Never()),
      },
      { additionalProperties: true },
    ),
    customerId: Type.Union([Type.String(), Type.Null()]),
    platformAccountId: Type.Optional(Type.String()),
    defaultUmaDepositAccount: Type.Boolean(),
    beneficiaryVerificationStatus: StringEnum(VERIFICATION_STATUSES),
    beneficiaryVerifiedData: Type.Optional(Type.Object({ fullName: Type.String() }, { additionalProperties: false })),
    cryptoNetwork: Type.Optional(Type.String()),
    ownershipType: Type.Optional(OwnershipType),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false },
);

export const CustomerExternalAccountQuery = Type.Object({
  ...PageQuery,
  currency: Type.Optional(CurrencyCode),
  customerId: Type.Optional(Type.String({ maxLength: 200 })),
});

export const PlatformExternalAccountQuery = Type.Object({
  currency: Type.Optional(CurrencyCode),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  cursor: PageQuery.cursor,
});
