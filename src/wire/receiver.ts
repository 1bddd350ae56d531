import { Type } from '@sinclair/typebox';
import { Currency } from './common.ts';
import { component } from './component.ts';
import { EXAMPLE, MXN } from './examples.ts';

const lookupExample = {
  lookupId: 'Lookup:019a2f4e-7c1d-7b3a-9f0e-5d8c6b4a3e28',
  supportedCurrencies: [{ currency: MXN, estimatedExchangeRate: 18.5, min: 100, max: 10_000_000 }],
  requiredPayerDataFields: [{ name: 'FULL_NAME', mandatory: true }],
};

export const ReceiverLookupQuery = Type.Object({
  senderUmaAddress: Type.Optional(
    Type.String({ minLength: 3, maxLength: 255, description: "UMA address of one of the platform's customers" }),
  ),
  customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The sending customer' })),
});

const CurrencyPreference = Type.Object(
  {
    currency: Currency,
    estimatedExchangeRate: Type.Number({ exclusiveMinimum: 0, description: 'Receiving units per sending unit' }),
    min: Type.Integer({ minimum: 1 }),
    max: Type.Integer({ minimum: 1 }),
  },
  { additionalProperties: false },
);

const lookupFields = {
  lookupId: Type.String(),
  supportedCurrencies: Type.Array(CurrencyPreference),
  requiredPayerDataFields: Type.Optional(
    Type.Array(Type.Object({ name: Type.String(), mandatory: Type.Boolean() }, { additionalProperties: false })),
  ),
};

export const UmaReceiverLookup = component(
  'UmaReceiverLookup',
  Type.Object({ ...lookupFields, receiverUmaAddress: Type.String() }, { additionalProperties: false }),
  { ...lookupExample, receiverUmaAddress: '$maria@receiver.example' },
);
export const AccountReceiverLookup = component(
  'AccountReceiverLookup',
  Type.Object({ ...lookupFields, accountId: Type.String() }, { additionalProperties: false }),
  { ...lookupExample, accountId: EXAMPLE.externalAccountId },
);

export const ReceiverUmaParam = Type.Object({ receiverUmaAddress: Type.String({ minLength: 1, maxLength: 255 }) });
export const ReceiverAccountParam = Type.Object({ accountId: Type.String({ minLength: 1, maxLength: 200 }) });
