import { type Static, Type } from '@sinclair/typebox';
import { StringEnum, SupportedCurrencyCode, Timestamp } from './common.ts';
import { component } from './component.ts';
import { EXAMPLE } from './examples.ts';

export const CustomerInfoFieldName = StringEnum([
  'FULL_NAME',
  'BIRTH_DATE',
  'NATIONALITY',
  'PHONE_NUMBER',
  'EMAIL',
  'POSTAL_ADDRESS',
  'TAX_ID',
  'REGISTRATION_NUMBER',
  'USER_TYPE',
  'COUNTRY_OF_RESIDENCE',
  'ACCOUNT_IDENTIFIER',
  'FI_LEGAL_ENTITY_NAME',
  'FI_ADDRESS',
  'PURPOSE_OF_PAYMENT',
  'ULTIMATE_INSTITUTION_COUNTRY',
  'IDENTIFIER',
  'BUSINESS_TYPE',
] as const);

export const WebhookEnvelopeName = StringEnum(['LEGACY', 'CURRENT'] as const, {
  description:
    "LEGACY (default): the specification's envelopes (type OUTGOING_PAYMENT with a transaction member, ...). " +
    'CURRENT: {id, type: "OBJECT.EVENT", timestamp, data}.',
});

const Amount = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Smallest currency unit' });

export const PlatformCurrencyConfig = Type.Object(
  {
    currencyCode: SupportedCurrencyCode,
    minAmount: Amount,
    maxAmount: Amount,
    requiredCounterpartyFields: Type.Array(
      Type.Object({ name: CustomerInfoFieldName, mandatory: Type.Boolean() }, { additionalProperties: false }),
      { maxItems: 17 },
    ),
    enabledTransactionTypes: Type.Array(StringEnum(['INCOMING', 'OUTGOING'] as const), { maxItems: 2 }),
  },
  { additionalProperties: false },
);

const currencyExample: Static<typeof PlatformCurrencyConfig> = {
  currencyCode: 'USD',
  minAmount: 100,
  maxAmount: 1_000_000,
  requiredCounterpartyFields: [{ name: 'FULL_NAME', mandatory: true }],
  enabledTransactionTypes: ['INCOMING', 'OUTGOING'],
};

export const PlatformConfig = component(
  'PlatformConfig',
  Type.Object({
    id: Type.String(),
    umaDomain: Type.String(),
    webhookEndpoint: Type.Optional(Type.String({ description: 'Left out until an endpoint is set' })),
    supportedCurrencies: Type.Array(PlatformCurrencyConfig),
    isRegulatedFinancialInstitution: Type.Boolean(),
    webhookEnvelope: WebhookEnvelopeName,
    webhookPublicKey: Type.String({
      description: "Our extension: PEM SPKI of this environment's ECDSA P-256 key; verifies X-Grid-Signature",
    }),
    webhookStandardPublicKey: Type.String({
      description:
        'Our extension: whpk_<base64 raw Ed25519 key>; verifies the Standard Webhooks webhook-signature header',
    }),
    webhookEndpointFailingSince: Type.Union([Timestamp, Type.Null()], {
      description:
        'Our extension: when an event to the current endpoint last ran out of retries; null once a delivery ' +
        'succeeds again',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  }),
  {
    id: 'PlatformConfig:019a2f4e-7c1d-7b3a-9f0e-5d8c6b4a3e2c',
    umaDomain: 'payouts.example',
    webhookEndpoint: 'https://platform.example/webhooks',
    supportedCurrencies: [currencyExample],
    isRegulatedFinancialInstitution: false,
    webhookEnvelope: 'LEGACY',
    webhookPublicKey: '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE...\n-----END PUBLIC KEY-----\n',
    webhookStandardPublicKey: 'whpk_MCowBQYDK2VwAyEA...',
    webhookEndpointFailingSince: null,
    createdAt: EXAMPLE.createdAt,
    updatedAt: EXAMPLE.updatedAt,
  },
);

/*
 * The newest contract's configuration for products this service does not have (embedded wallets, card
 * tokenization, platform fees, provider field lists): accepted, so a typed client that sends them is not
 * refused, and ignored (docs/contract.md, "Accepted and ignored"). Loose on purpose, as nothing reads them.
 */
const IGNORED = 'Accepted and ignored: this service has no such product';
const ignoredObject = () => Type.Optional(Type.Object({}, { additionalProperties: true, description: IGNORED }));
/** A platform fee rule of the contract's shape; no fee of the platform's own is charged here. */
const IgnoredFeeConfig = Type.Object(
  {
    feeType: Type.Optional(Type.String({ maxLength: 64 })),
    sourceCurrency: Type.Optional(Type.String({ maxLength: 16 })),
    variableFeeBps: Type.Optional(Type.Number()),
    fixedFee: Type.Optional(
      Type.Object({ amount: Type.Optional(Type.Number()), currency: Type.Optional(Type.Unknown()) }),
    ),
  },
  { additionalProperties: true },
);
const ignoredList = () => Type.Optional(Type.Array(IgnoredFeeConfig, { maxItems: 100, description: IGNORED }));

/** Read-only in the contract: a client that sends back what GET answered may include them. */
const ignoredNames = () =>
  Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100, description: IGNORED }));

/** A currency as a PATCH gives it: what is stored, and the provider field lists, which are not. */
const PlatformCurrencyConfigRequest = Type.Object(
  {
    ...PlatformCurrencyConfig.properties,
    providerRequiredCustomerFields: ignoredNames(),
    providerRequiredCounterpartyCustomerFields: ignoredNames(),
  },
  { additionalProperties: false },
);

export const PlatformConfigUpdate = component(
  'PlatformConfigUpdateRequest',
  Type.Object(
    {
      umaDomain: Type.Optional(Type.String({ minLength: 1, maxLength: 253 })),
      webhookEndpoint: Type.Optional(
        Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
          description: 'Absolute http(s) URL (https in production); null removes it',
        }),
      ),
      supportedCurrencies: Type.Optional(Type.Array(PlatformCurrencyConfigRequest, { minItems: 1, maxItems: 50 })),
      webhookEnvelope: Type.Optional(WebhookEnvelopeName),
      embeddedWalletConfig: ignoredObject(),
      cardTokenization2faConfig: ignoredObject(),
      feeConfigs: ignoredList(),
    },
    { additionalProperties: false },
  ),
  { webhookEndpoint: 'https://platform.example/webhooks', supportedCurrencies: [currencyExample] },
);

/** The update without what is accepted and ignored, so none of it is stored. */
export function withoutIgnoredConfig(input: Static<typeof PlatformConfigUpdate>) {
  const {
    embeddedWalletConfig: _w,
    cardTokenization2faConfig: _c,
    feeConfigs: _f,
    supportedCurrencies,
    ...kept
  } = input;
  if (!supportedCurrencies) return kept;
  const currencies = supportedCurrencies.map(
    ({ providerRequiredCustomerFields: _a, providerRequiredCounterpartyCustomerFields: _b, ...currency }) => currency,
  );
  return { ...kept, supportedCurrencies: currencies };
}
