import { Type, type TSchema, type TString } from '@sinclair/typebox';
import { CURRENCY_CODES } from '../../domain/currencies.ts';

/** A string enum, emitted as a plain JSON Schema `enum` (clear OpenAPI, one clear validation error). */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** Money at the API edge: a positive integer in the smallest unit that JavaScript can hold exactly. */
export const PositiveAmount = Type.Integer({
  minimum: 1,
  maximum: Number.MAX_SAFE_INTEGER,
  description: 'Smallest currency unit',
});
export const CurrencyCode = Type.String({
  pattern: '^[A-Z]{3,5}$',
  description: 'Currency code (ISO 4217, or a crypto ticker)',
});
export const SupportedCurrencyCode = StringEnum(CURRENCY_CODES, { description: 'A currency this service supports' });
export const Timestamp = Type.String({ format: 'date-time' });
export const CountryCode = Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' });
export const CalendarDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD' });

export const PURPOSES_OF_PAYMENT = [
  'GIFT',
  'SELF',
  'GOODS_OR_SERVICES',
  'EDUCATION',
  'HEALTH_OR_MEDICAL',
  'REAL_ESTATE_PURCHASE',
  'TAX_PAYMENT',
  'LOAN_PAYMENT',
  'UTILITY_BILL',
  'DONATION',
  'TRAVEL',
  'FAMILY_SUPPORT',
  'SALARY_PAYMENT',
  'OTHER',
] as const;
export const PurposeOfPayment = StringEnum(PURPOSES_OF_PAYMENT);

/** Free text that travels with a payment to its recipient (ACH addenda, wire OBI, RTP/FedNow remittance). */
export const RemittanceInformation = Type.String({ minLength: 1, maxLength: 80 });

export const ErrorBody = Type.Object({
  status: Type.Integer({ description: 'Same as the HTTP status' }),
  code: Type.String(),
  message: Type.String(),
  details: Type.Optional(Type.Object({}, { additionalProperties: true })),
});

export const Currency = Type.Object({
  code: Type.String(),
  name: Type.String(),
  symbol: Type.String(),
  decimals: Type.Integer({ minimum: 0 }),
});

export const CurrencyAmount = Type.Object({ amount: Type.Integer(), currency: Currency });

export const Address = Type.Object({
  line1: Type.String({ minLength: 1, maxLength: 255 }),
  line2: Type.Optional(Type.String({ maxLength: 255 })),
  city: Type.Optional(Type.String({ maxLength: 255 })),
  state: Type.Optional(Type.String({ maxLength: 255 })),
  postalCode: Type.String({ minLength: 1, maxLength: 32 }),
  country: CountryCode,
});

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
};

export const SortOrder = StringEnum(['asc', 'desc'] as const);

export function Paginated<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    hasMore: Type.Boolean(),
    nextCursor: Type.Optional(Type.String()),
    totalCount: Type.Integer({ minimum: 0 }),
  });
}

export function DataList<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item) });
}

export function IdParam<K extends string>(name: K, prefix: string) {
  return Type.Object({
    [name]: Type.String({ minLength: 1, maxLength: 200, description: `${prefix}:<uuid>` }),
  } as Record<K, TString>);
}

/** Every error answer a route can give, for the OpenAPI document. */
export function errors(...statuses: number[]) {
  return Object.fromEntries(statuses.map((s) => [s, ErrorBody]));
}
