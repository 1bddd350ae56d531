import { Type, type TSchema } from '@sinclair/typebox';
import { KYC_PROFILE_FIELDS } from '../domain/kyc.ts';
import { BeneficialOwner } from './beneficial-owners.ts';
import { Address, CalendarDate, StringEnum, CountryCode, PageQuery, RequestObject, Timestamp } from './common.ts';
import { component } from './component.ts';
import { ADDRESS, EXAMPLE } from './examples.ts';

export const CustomerType = StringEnum(['INDIVIDUAL', 'BUSINESS']);
export const VerificationStatus = StringEnum(['UNVERIFIED', 'PENDING', 'APPROVED', 'REJECTED']);

export const BusinessInfo = component(
  'BusinessInfo',
  Type.Object(
    {
      legalName: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
      doingBusinessAs: Type.Optional(Type.String({ maxLength: 255 })),
      country: Type.Optional(CountryCode),
      registrationNumber: Type.Optional(Type.String({ maxLength: 255 })),
      incorporatedOn: Type.Optional(CalendarDate),
      entityType: Type.Optional(
        StringEnum([
          'SOLE_PROPRIETORSHIP',
          'PARTNERSHIP',
          'LLC',
          'CORPORATION',
          'S_CORPORATION',
          'NON_PROFIT',
          'OTHER',
        ]),
      ),
      taxId: Type.Optional(Type.String({ maxLength: 255 })),
      countriesOfOperation: Type.Optional(Type.Array(CountryCode)),
      businessType: Type.Optional(Type.String({ maxLength: 64 })),
      purposeOfAccount: Type.Optional(Type.String({ maxLength: 64 })),
      sourceOfFunds: Type.Optional(Type.String({ maxLength: 1000 })),
      expectedMonthlyTransactionCount: Type.Optional(Type.String({ maxLength: 64 })),
      expectedMonthlyTransactionVolume: Type.Optional(Type.String({ maxLength: 64 })),
      expectedRecipientJurisdictions: Type.Optional(Type.Array(CountryCode)),
      // The newest contract's additions, stored and echoed with the rest of businessInfo.
      naicsCode: Type.Optional(Type.String({ maxLength: 255 })),
      primaryContactFirstName: Type.Optional(Type.String({ maxLength: 255 })),
      primaryContactLastName: Type.Optional(Type.String({ maxLength: 255 })),
      purposeOfAccountOtherDescription: Type.Optional(Type.String({ maxLength: 1000 })),
      sourceOfFundsCategories: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 })),
      sourceOfFundsOtherDescription: Type.Optional(Type.String({ maxLength: 1000 })),
      expectedCounterpartyCountries: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 })),
    },
    { additionalProperties: false },
  ),
  { legalName: 'Acme Widgets LLC', country: 'US', registrationNumber: '5551234', entityType: 'LLC' },
);

/*
 * The newest public contract's KYC profile fields: stored with the customer and echoed as given. Their
 * shapes are loose on purpose (free text and lists of text): this service keeps them for the platform and
 * decides nothing on them. kycStatus and kybStatus are the one exception: the service owns a customer's
 * verification status (POST /verifications), so a client's value is accepted and ignored.
 */
const text = (maxLength = 255) => Type.Optional(Type.String({ maxLength }));
const textList = () => Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 }));
const IGNORED = "Accepted and ignored: the service sets a customer's verification status itself";

export const EndUserTermsConsent = Type.Object(
  { acceptedAt: text(), ipAddress: text(), termsVersion: text(), acceptanceMethod: text() },
  { additionalProperties: false },
);

/** Stored and echoed for every customer type. */
export const kycProfileFields = {
  region: text(),
  currencies: textList(),
  email: text(),
  phoneNumber: text(),
  idType: text(),
  identifier: text(),
  countryOfIssuance: text(),
  pepStatus: text(),
  annualIncomeRange: text(),
  netWorthRange: text(),
  purposeOfAccount: text(),
  purposeOfAccountOtherDescription: text(1000),
  sourceOfFundsCategories: textList(),
  sourceOfFundsOtherDescription: text(1000),
  sourceOfWealthCategories: textList(),
  sourceOfWealthOtherDescription: text(1000),
  expectedMonthlyTransactionCount: text(),
  expectedMonthlyTransactionVolume: text(),
  endUserTermsConsent: Type.Optional(EndUserTermsConsent),
} satisfies Record<(typeof KYC_PROFILE_FIELDS)[number], TSchema>;

const ignoredStatusFields = {
  kycStatus: Type.Optional(Type.String({ maxLength: 255, description: IGNORED })),
  kybStatus: Type.Optional(Type.String({ maxLength: 255, description: IGNORED })),
};

export const BusinessInfoRequest = component('BusinessInfoRequest', RequestObject({ ...BusinessInfo.properties }), {
  legalName: 'Acme Widgets LLC',
  country: 'US',
  registrationNumber: '5551234',
  entityType: 'LLC',
});

const profileFields = {
  umaAddress: Type.Optional(Type.String({ minLength: 3, maxLength: 255 })),
  fullName: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  birthDate: Type.Optional(CalendarDate),
  nationality: Type.Optional(CountryCode),
  address: Type.Optional(Address),
  businessInfo: Type.Optional(BusinessInfoRequest),
  ...kycProfileFields,
  ...ignoredStatusFields,
};

export const CustomerCreate = component(
  'CustomerCreateRequest',
  RequestObject({
    customerType: CustomerType,
    platformCustomerId: Type.String({ minLength: 1, maxLength: 255 }),
    ...profileFields,
  }),
  {
    customerType: 'INDIVIDUAL',
    platformCustomerId: 'user-4521',
    fullName: 'Ada Lovelace',
    birthDate: '1990-12-10',
    nationality: 'GB',
    address: ADDRESS,
  },
);

export const CustomerUpdate = component(
  'CustomerUpdateRequest',
  RequestObject({
    customerType: CustomerType,
    platformCustomerId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    ...profileFields,
  }),
  { customerType: 'INDIVIDUAL', fullName: 'Ada King', address: { ...ADDRESS, line2: 'Apt 4' } },
);

export const Customer = component(
  'Customer',
  Type.Object(
    {
      id: Type.String(),
      platformCustomerId: Type.String(),
      customerType: CustomerType,
      umaAddress: Type.String(),
      createdAt: Timestamp,
      updatedAt: Timestamp,
      isDeleted: Type.Boolean(),
      kycStatus: Type.Optional(VerificationStatus),
      kybStatus: Type.Optional(VerificationStatus),
      fullName: Type.Optional(Type.String()),
      birthDate: Type.Optional(Type.String()),
      nationality: Type.Optional(Type.String()),
      address: Type.Optional(Address),
      businessInfo: Type.Optional(BusinessInfo),
      beneficialOwners: Type.Optional(Type.Array(BeneficialOwner)),
      ...kycProfileFields,
    },
    { additionalProperties: false },
  ),
  {
    id: EXAMPLE.customerId,
    platformCustomerId: 'user-4521',
    customerType: 'INDIVIDUAL',
    umaAddress: '$user-4521@payouts.example',
    createdAt: EXAMPLE.createdAt,
    updatedAt: EXAMPLE.createdAt,
    isDeleted: false,
    kycStatus: 'APPROVED',
    fullName: 'Ada Lovelace',
    birthDate: '1990-12-10',
    nationality: 'GB',
    address: ADDRESS,
  },
);

export const CustomerListQuery = Type.Object({
  ...PageQuery,
  platformCustomerId: Type.Optional(Type.String()),
  customerType: Type.Optional(CustomerType),
  umaAddress: Type.Optional(Type.String()),
  createdAfter: Type.Optional(Timestamp),
  createdBefore: Type.Optional(Timestamp),
  updatedAfter: Type.Optional(Timestamp),
  updatedBefore: Type.Optional(Timestamp),
  isIncludingDeleted: Type.Optional(Type.Boolean({ default: false })),
});
