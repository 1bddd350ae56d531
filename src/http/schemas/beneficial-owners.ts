import { Type } from '@sinclair/typebox';
import { Address, CalendarDate, CountryCode, PageQuery, StringEnum, Timestamp } from './common.ts';

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

export const BeneficialOwnerCreate = Type.Object(
  {
    customerId: Type.String({ minLength: 1, maxLength: 200 }),
    roles: Roles,
    ownershipPercentage: Ownership,
    personalInfo: PersonalInfo,
  },
  { additionalProperties: false },
);

export const BeneficialOwnerUpdate = Type.Object(
  {
    roles: Type.Optional(Roles),
    ownershipPercentage: Type.Optional(Ownership),
    personalInfo: Type.Optional(PersonalInfoUpdate),
  },
  { additionalProperties: false },
);

export const BeneficialOwner = Type.Object(
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
);

export const BeneficialOwnerListQuery = Type.Object({
  ...PageQuery,
  customerId: Type.Optional(Type.String({ maxLength: 200 })),
  role: Type.Optional(BeneficialOwnerRole),
});
