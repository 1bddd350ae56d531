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
    webhookEndpoint: Type.Union([Type.String(), Type.Null()]),
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
      supportedCurrencies: Type.Optional(Type.Array(PlatformCurrencyConfig, { minItems: 1, maxItems: 50 })),
      webhookEnvelope: Type.Optional(WebhookEnvelopeName),
    },
    { additionalProperties: false },
  ),
  { webhookEndpoint: 'https://platform.example/webhooks', supportedCurrencies: [currencyExample] },
);
