import { Type } from '@sinclair/typebox';
import { Currency } from './common.ts';

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

export const UmaReceiverLookup = Type.Object(
  { ...lookupFields, receiverUmaAddress: Type.String() },
  { additionalProperties: false },
);
export const AccountReceiverLookup = Type.Object(
  { ...lookupFields, accountId: Type.String() },
  { additionalProperties: false },
);

export const ReceiverUmaParam = Type.Object({ receiverUmaAddress: Type.String({ minLength: 1, maxLength: 255 }) });
export const ReceiverAccountParam = Type.Object({ accountId: Type.String({ minLength: 1, maxLength: 200 }) });
