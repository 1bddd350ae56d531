import { Type } from '@sinclair/typebox';
import { ACCOUNT_TYPE_NAMES, CRYPTO_NETWORKS, EXTERNAL_ACCOUNT_STATUSES } from '../domain/account-types.ts';
import { VERIFICATION_STATUSES } from '../domain/beneficiary-verification.ts';
import { CurrencyCode, PageQuery, RequestObject, StringEnum, Timestamp } from './common.ts';
import { component } from './component.ts';
import { EXAMPLE } from './examples.ts';

const exampleAccountInfo = {
  accountType: 'USD_ACCOUNT',
  accountNumber: '123456789',
  routingNumber: '021000021',
  beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada Lovelace' },
} as const;
const platformAccountInfo = {
  ...exampleAccountInfo,
  beneficiary: { beneficiaryType: 'BUSINESS', legalName: 'Acme Payouts Inc' },
} as const;

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

const externalAccountFields = {
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
};

export const ExternalAccountCreate = component('ExternalAccountCreateRequest', RequestObject(externalAccountFields), {
  customerId: EXAMPLE.customerId,
  currency: 'USD',
  platformAccountId: 'bank-1',
  ownershipType: 'FIRST_PARTY',
  accountInfo: exampleAccountInfo,
});

const { customerId: _customer, defaultUmaDepositAccount: _default, ...platformAccountFields } = externalAccountFields;

export const PlatformExternalAccountCreate = component(
  'PlatformExternalAccountCreateRequest',
  RequestObject(platformAccountFields),
  {
    currency: 'USD',
    platformAccountId: 'operating-account',
    accountInfo: platformAccountInfo,
  },
);

export const ExternalAccount = component(
  'ExternalAccount',
  Type.Object(
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
  ),
  {
    id: EXAMPLE.externalAccountId,
    status: 'ACTIVE',
    currency: 'USD',
    accountInfo: { ...exampleAccountInfo, paymentRails: ['ACH', 'WIRE', 'RTP', 'FEDNOW', 'BANK_TRANSFER'] },
    customerId: EXAMPLE.customerId,
    platformAccountId: 'bank-1',
    defaultUmaDepositAccount: false,
    beneficiaryVerificationStatus: 'MATCHED',
    ownershipType: 'FIRST_PARTY',
    createdAt: EXAMPLE.createdAt,
    updatedAt: EXAMPLE.createdAt,
  },
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
