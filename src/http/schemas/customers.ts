import { Type } from '@sinclair/typebox';
import { BeneficialOwner } from './beneficial-owners.ts';
import { Address, CalendarDate, StringEnum, CountryCode, PageQuery, Timestamp } from './common.ts';
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

const profileFields = {
  umaAddress: Type.Optional(Type.String({ minLength: 3, maxLength: 255 })),
  fullName: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  birthDate: Type.Optional(CalendarDate),
  nationality: Type.Optional(CountryCode),
  address: Type.Optional(Address),
  businessInfo: Type.Optional(BusinessInfo),
};

export const CustomerCreate = component(
  'CustomerCreateRequest',
  Type.Object({
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
  Type.Object({
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
