import { type ObjectOptions, type Static, Type, type TProperties, type TSchema, type TString } from '@sinclair/typebox';
import { CURRENCY_CODES } from '../domain/currencies.ts';
import { COUNT_LIMIT } from '../domain/paging.ts';
import { component, componentName, exampleOf } from './component.ts';
import { ADDRESS, USD } from './examples.ts';

/** A string enum, emitted as a plain JSON Schema `enum` (clear OpenAPI, one clear validation error). */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/**
 * A request object: closed, so a field it does not name is a 400 naming that field rather than something
 * silently dropped (a misspelt `remittanceInfo` would otherwise send a payment without its reference).
 */
export function RequestObject<T extends TProperties>(properties: T, options: ObjectOptions = {}) {
  return Type.Object(properties, { ...options, additionalProperties: false });
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

export const ErrorBody = component(
  'Error',
  Type.Object({
    status: Type.Integer({ description: 'Same as the HTTP status' }),
    code: Type.String({ description: 'A stable code from the closed catalogue, for programs to branch on' }),
    message: Type.String({ description: 'For people: what is wrong and how to fix it' }),
    details: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description:
            'For a 400: `field` (the path of the first invalid field), `rule`, and `errors` listing every ' +
            'invalid field',
        },
      ),
    ),
  }),
  {
    status: 400,
    code: 'INVALID_INPUT',
    message: 'amount must be >= 1',
    details: {
      field: 'amount',
      rule: 'minimum',
      location: 'body',
      errors: [{ field: 'amount', rule: 'minimum', message: 'amount must be >= 1' }],
    },
  },
);

export const Currency = component(
  'Currency',
  Type.Object({
    code: Type.String(),
    name: Type.String(),
    symbol: Type.String(),
    decimals: Type.Integer({ minimum: 0, description: 'Digits after the decimal point of the smallest unit' }),
  }),
  USD,
);

export const CurrencyAmount = component(
  'CurrencyAmount',
  Type.Object({ amount: Type.Integer({ description: 'Smallest currency unit' }), currency: Currency }),
  { amount: 2500, currency: USD },
);

export const Address = component(
  'Address',
  Type.Object(
    {
      line1: Type.String({ minLength: 1, maxLength: 255 }),
      line2: Type.Optional(Type.String({ maxLength: 255 })),
      city: Type.Optional(Type.String({ maxLength: 255 })),
      state: Type.Optional(Type.String({ maxLength: 255 })),
      postalCode: Type.String({ minLength: 1, maxLength: 32 }),
      country: CountryCode,
    },
    { additionalProperties: false },
  ),
  ADDRESS,
);

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
};

export const SortOrder = StringEnum(['asc', 'desc'] as const);

/** A page of a named resource is named after it (`TransactionPage`), its example built from the item's. */
export function Paginated<T extends TSchema>(item: T) {
  const schema = Type.Object({
    data: Type.Array(item),
    hasMore: Type.Boolean({ description: 'Whether another page follows; ask for it with cursor=nextCursor' }),
    nextCursor: Type.Optional(Type.String()),
    totalCount: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: `How many match the filters, whatever the page; left out when more than ${COUNT_LIMIT} do`,
      }),
    ),
  });
  const name = componentName(item);
  if (!name) return schema;
  const example = exampleOf(item);
  return component(
    `${name}Page`,
    schema,
    example === undefined ? undefined : ({ data: [example], hasMore: false, totalCount: 1 } as Static<typeof schema>),
  );
}

/** Every item at once: `{data: [...]}`, named `<Item>List`. */
export function DataList<T extends TSchema>(item: T) {
  const schema = Type.Object({ data: Type.Array(item) });
  const name = componentName(item);
  if (!name) return schema;
  const example = exampleOf(item);
  return component(
    `${name}List`,
    schema,
    example === undefined ? undefined : ({ data: [example] } as Static<typeof schema>),
  );
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
