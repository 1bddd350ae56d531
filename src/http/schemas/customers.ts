import { Type } from '@sinclair/typebox';
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
    },
    { additionalProperties: false },
  ),
  { legalName: 'Acme Widgets LLC', country: 'US', registrationNumber: '5551234', entityType: 'LLC' },
);

/*
 * The newest public contract's KYC profile fields. They are accepted, so a client that sends them is not
 * refused, and ignored for now: not stored, not echoed (docs/contract.md, "Accepted and ignored"). Their
 * shapes are loose on purpose: a value this service ignores should not be the reason a request fails.
 */
const IGNORED = 'Accepted and ignored for now: not stored or echoed';
const ignoredText = (maxLength = 255) => Type.Optional(Type.String({ maxLength, description: IGNORED }));
const ignoredList = () =>
  Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100, description: IGNORED }));

const ignoredProfileFields = {
  region: ignoredText(),
  currencies: ignoredList(),
  email: ignoredText(),
  phoneNumber: ignoredText(),
  idType: ignoredText(),
  identifier: ignoredText(),
  countryOfIssuance: ignoredText(),
  kycStatus: ignoredText(),
  kybStatus: ignoredText(),
  pepStatus: ignoredText(),
  annualIncomeRange: ignoredText(),
  netWorthRange: ignoredText(),
  purposeOfAccount: ignoredText(),
  purposeOfAccountOtherDescription: ignoredText(1000),
  sourceOfFundsCategories: ignoredList(),
  sourceOfFundsOtherDescription: ignoredText(1000),
  sourceOfWealthCategories: ignoredList(),
  sourceOfWealthOtherDescription: ignoredText(1000),
  expectedMonthlyTransactionCount: ignoredText(),
  expectedMonthlyTransactionVolume: ignoredText(),
  endUserTermsConsent: Type.Optional(
    RequestObject(
      {
        acceptedAt: ignoredText(),
        ipAddress: ignoredText(),
        termsVersion: ignoredText(),
        acceptanceMethod: ignoredText(),
      },
      { description: IGNORED },
    ),
  ),
};

/** businessInfo fields of the newest contract that are accepted and ignored, like the profile fields above. */
const ignoredBusinessFields = {
  naicsCode: ignoredText(),
  primaryContactFirstName: ignoredText(),
  primaryContactLastName: ignoredText(),
  purposeOfAccountOtherDescription: ignoredText(1000),
  sourceOfFundsCategories: ignoredList(),
  sourceOfFundsOtherDescription: ignoredText(1000),
  expectedCounterpartyCountries: ignoredList(),
};

export const BusinessInfoRequest = component(
  'BusinessInfoRequest',
  RequestObject({ ...BusinessInfo.properties, ...ignoredBusinessFields }),
  { legalName: 'Acme Widgets LLC', country: 'US', registrationNumber: '5551234', entityType: 'LLC' },
);

const profileFields = {
  umaAddress: Type.Optional(Type.String({ minLength: 3, maxLength: 255 })),
  fullName: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  birthDate: Type.Optional(CalendarDate),
  nationality: Type.Optional(CountryCode),
  address: Type.Optional(Address),
  businessInfo: Type.Optional(BusinessInfoRequest),
  ...ignoredProfileFields,
};

/** The request without the fields accepted and ignored, so none of them is stored with the profile. */
export function withoutIgnoredFields<T extends { businessInfo?: Record<string, unknown> }>(input: T): T {
  if (!input.businessInfo) return input;
  const kept = Object.entries(input.businessInfo).filter(([key]) => !(key in ignoredBusinessFields));
  return { ...input, businessInfo: Object.fromEntries(kept) };
}

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
