import { Type } from '@sinclair/typebox';
import { Address, CalendarDate, CountryCode, PageQuery, StringEnum, Timestamp } from './common.ts';
import { component } from './component.ts';
import { ADDRESS, EXAMPLE } from './examples.ts';

const personalInfoExample = {
  firstName: 'Grace',
  lastName: 'Hopper',
  birthDate: '1980-12-09',
  nationality: 'US',
  address: ADDRESS,
  idType: 'PASSPORT',
  identifier: '123456789',
} as const;

export const BENEFICIAL_OWNER_ROLES = [
  'UBO',
  'DIRECTOR',
  'COMPANY_OFFICER',
  'CONTROL_PERSON',
  'TRUSTEE',
  'GENERAL_PARTNER',
] as const;
export const ID_TYPES = ['SSN', 'PASSPORT', 'NATIONAL_ID', 'DRIVERS_LICENSE', 'TAX_ID', 'ITIN', 'CPF'] as const;

export const BeneficialOwnerRole = StringEnum(BENEFICIAL_OWNER_ROLES);
const Roles = Type.Array(BeneficialOwnerRole, {
  minItems: 1,
  maxItems: BENEFICIAL_OWNER_ROLES.length,
  uniqueItems: true,
});
const Ownership = Type.Integer({ minimum: 0, maximum: 100 });

const personalInfoFields = {
  firstName: Type.String({ minLength: 1, maxLength: 255 }),
  middleName: Type.Optional(Type.String({ maxLength: 255 })),
  lastName: Type.String({ minLength: 1, maxLength: 255 }),
  birthDate: CalendarDate,
  nationality: CountryCode,
  email: Type.Optional(Type.String({ format: 'email', maxLength: 255 })),
  phoneNumber: Type.Optional(Type.String({ pattern: '^\\+[1-9]\\d{1,14}$', description: 'E.164' })),
  address: Address,
  idType: StringEnum(ID_TYPES),
  identifier: Type.String({ minLength: 1, maxLength: 255 }),
  countryOfIssuance: Type.Optional(CountryCode),
};

export const PersonalInfo = Type.Object(personalInfoFields, { additionalProperties: false });
export const PersonalInfoUpdate = Type.Partial(PersonalInfo, { additionalProperties: false });

export const BeneficialOwnerCreate = component(
  'BeneficialOwnerCreateRequest',
  Type.Object(
    {
      customerId: Type.String({ minLength: 1, maxLength: 200 }),
      roles: Roles,
      ownershipPercentage: Ownership,
      personalInfo: PersonalInfo,
    },
    { additionalProperties: false },
  ),
  {
    customerId: EXAMPLE.customerId,
    roles: ['UBO', 'DIRECTOR'],
    ownershipPercentage: 40,
    personalInfo: personalInfoExample,
  },
);

export const BeneficialOwnerUpdate = component(
  'BeneficialOwnerUpdateRequest',
  Type.Object(
    {
      roles: Type.Optional(Roles),
      ownershipPercentage: Type.Optional(Ownership),
      personalInfo: Type.Optional(PersonalInfoUpdate),
    },
    { additionalProperties: false },
  ),
  { ownershipPercentage: 45, personalInfo: { email: 'grace@acme.example' } },
);

export const BeneficialOwner = component(
  'BeneficialOwner',
  Type.Object(
    {
      id: Type.String(),
      customerId: Type.String(),
      roles: Type.Array(BeneficialOwnerRole),
      ownershipPercentage: Ownership,
      personalInfo: PersonalInfo,
      kycStatus: StringEnum(['PENDING', 'APPROVED', 'REJECTED'] as const),
      createdAt: Timestamp,
      updatedAt: Timestamp,
    },
    { additionalProperties: false },
  ),
  {
    id: 'BeneficialOwner:019a2f4e-7c1d-7b3a-9f0e-5d8c6b4a3e26',
    customerId: EXAMPLE.customerId,
    roles: ['UBO', 'DIRECTOR'],
    ownershipPercentage: 40,
    personalInfo: personalInfoExample,
    kycStatus: 'PENDING',
    createdAt: EXAMPLE.createdAt,
    updatedAt: EXAMPLE.createdAt,
  },
);

export const BeneficialOwnerListQuery = Type.Object({
  ...PageQuery,
  customerId: Type.Optional(Type.String({ maxLength: 200 })),
  role: Type.Optional(BeneficialOwnerRole),
});
