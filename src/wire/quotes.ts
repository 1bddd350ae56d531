import { Type } from '@sinclair/typebox';
import {
  Currency,
  PageQuery,
  RequestObject,
  PurposeOfPayment,
  RemittanceInformation,
  StringEnum,
  Timestamp,
} from './common.ts';
import { component } from './component.ts';
import { EXAMPLE, MXN, USD } from './examples.ts';
import { PaymentInstructions, RateDetails, TransactionStatus } from './transactions.ts';

/**
 * One object per side with a discriminator, checked field by field in the service: a missing accountId
 * then answers "source.accountId is required" rather than a union's list of every variant's complaints.
 */
export const QuoteSourceInput = RequestObject({
  sourceType: StringEnum(['ACCOUNT', 'REALTIME_FUNDING']),
  accountId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3,5}$' })),
  cryptoNetwork: Type.Optional(Type.String({ maxLength: 64 })),
});

export const QuoteDestinationInput = RequestObject({
  destinationType: StringEnum(['ACCOUNT', 'EXTERNAL_ACCOUNT_DETAILS', 'UMA_ADDRESS']),
  accountId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  paymentRail: Type.Optional(Type.String({ maxLength: 64 })),
  umaAddress: Type.Optional(Type.String({ maxLength: 255 })),
  currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3,5}$' })),
  externalAccountDetails: Type.Optional(Type.Object({}, { additionalProperties: true })),
});

/** Strong customer authentication applies in no region this service serves: accepted, never asked for. */
export const ScaFactor = StringEnum(['SMS_OTP', 'TOTP', 'PASSKEY'], { description: 'Accepted and ignored' });

export const QuoteCreate = component(
  'QuoteCreateRequest',
  RequestObject({
    source: QuoteSourceInput,
    destination: QuoteDestinationInput,
    lockedCurrencySide: StringEnum(['SENDING', 'RECEIVING']),
    lockedCurrencyAmount: Type.Integer({ minimum: 1, maximum: 9_000_000_000_000_000 }),
    lookupId: Type.Optional(Type.String({ maxLength: 200 })),
    immediatelyExecute: Type.Optional(Type.Boolean()),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    purposeOfPayment: Type.Optional(PurposeOfPayment),
    remittanceInformation: Type.Optional(RemittanceInformation),
    platformFeeOverride: Type.Optional(
      RequestObject(
        {
          platformFixedFee: RequestObject({ amount: Type.Integer({ minimum: 0 }), currency: Type.String() }),
          platformVariableFeeBps: Type.Integer({ minimum: 0, maximum: 10_000 }),
        },
        { description: 'Accepted and ignored: this service charges no platform fee of its own to override' },
      ),
    ),
    scaFactor: Type.Optional(ScaFactor),
    senderCustomerInfo: Type.Optional(Type.Object({}, { additionalProperties: true })),
  }),
  {
    source: { sourceType: 'ACCOUNT', accountId: EXAMPLE.internalAccountId },
    destination: { destinationType: 'ACCOUNT', accountId: EXAMPLE.externalAccountId },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 10000,
    description: 'March payout',
    purposeOfPayment: 'SALARY_PAYMENT',
  },
);

export const Quote = component(
  'Quote',
  Type.Object(
    {
      id: Type.String(),
      status: TransactionStatus,
      createdAt: Timestamp,
      expiresAt: Timestamp,
      source: Type.Object(
        {
          sourceType: Type.String(),
          accountId: Type.Optional(Type.String()),
          customerId: Type.Optional(Type.String()),
          currency: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
      destination: Type.Object(
        {
          destinationType: Type.String(),
          accountId: Type.Optional(Type.String()),
          paymentRail: Type.Optional(Type.String()),
          umaAddress: Type.Optional(Type.String()),
          currency: Type.Optional(Type.String()),
          externalAccountDetails: Type.Optional(Type.Object({}, { additionalProperties: true })),
        },
        { additionalProperties: false },
      ),
      sendingCurrency: Currency,
      receivingCurrency: Currency,
      totalSendingAmount: Type.Integer({ minimum: 1 }),
      totalReceivingAmount: Type.Integer({ minimum: 1 }),
      exchangeRate: Type.Number({ exclusiveMinimum: 0 }),
      feesIncluded: Type.Integer({ minimum: 0 }),
      transactionId: Type.String(),
      paymentInstructions: Type.Optional(Type.Array(PaymentInstructions)),
      counterpartyInformation: Type.Optional(Type.Object({}, { additionalProperties: true })),
      rateDetails: RateDetails,
    },
    { additionalProperties: false },
  ),
  {
    id: EXAMPLE.quoteId,
    status: 'PENDING',
    createdAt: EXAMPLE.createdAt,
    expiresAt: '2025-10-13T09:35:00.000Z',
    source: { sourceType: 'ACCOUNT', accountId: EXAMPLE.internalAccountId, currency: 'USD' },
    destination: { destinationType: 'ACCOUNT', accountId: EXAMPLE.externalAccountId, currency: 'MXN' },
    sendingCurrency: USD,
    receivingCurrency: MXN,
    totalSendingAmount: 10000,
    totalReceivingAmount: 183150,
    exchangeRate: 18.5,
    feesIncluded: 100,
    transactionId: EXAMPLE.transactionId,
    rateDetails: {
      counterpartyMultiplier: 18.5,
      counterpartyFixedFee: 0,
      gridApiMultiplier: 1,
      gridApiFixedFee: 100,
      gridApiVariableFeeRate: 0,
      gridApiVariableFeeAmount: 0,
    },
  },
);

export const QuoteListQuery = Type.Object({
  ...PageQuery,
  customerId: Type.Optional(Type.String()),
  sendingAccountId: Type.Optional(Type.String()),
  receivingAccountId: Type.Optional(Type.String()),
  sendingUmaAddress: Type.Optional(Type.String()),
  receivingUmaAddress: Type.Optional(Type.String()),
  status: Type.Optional(StringEnum(['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'EXPIRED'])),
  createdAfter: Type.Optional(Timestamp),
  createdBefore: Type.Optional(Timestamp),
});

export const SandboxSend = component(
  'SandboxSendRequest',
  RequestObject({
    quoteId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    currencyCode: Type.Optional(Type.String({ pattern: '^[A-Z]{3,5}$' })),
    currencyAmount: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
  }),
  { quoteId: EXAMPLE.quoteId, currencyCode: 'USD', currencyAmount: 10000 },
);

export const ExchangeRateQuery = Type.Object({
  sourceCurrency: Type.Optional(Type.String({ pattern: '^[A-Z]{3,5}$' })),
  destinationCurrency: Type.Optional(Type.Array(Type.String({ pattern: '^[A-Z]{3,5}$' }))),
  sendingAmount: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 10000 }),
});

export const ExchangeRate = component(
  'ExchangeRate',
  Type.Object(
    {
      sourceCurrency: Currency,
      destinationCurrency: Currency,
      destinationPaymentRail: Type.String(),
      sendingAmount: Type.Integer(),
      minSendingAmount: Type.Integer(),
      maxSendingAmount: Type.Integer(),
      receivingAmount: Type.Integer(),
      exchangeRate: Type.Number({ exclusiveMinimum: 0 }),
      fees: Type.Object({ fixed: Type.Integer() }),
      updatedAt: Timestamp,
    },
    { additionalProperties: false },
  ),
  {
    sourceCurrency: USD,
    destinationCurrency: MXN,
    destinationPaymentRail: 'SPEI',
    sendingAmount: 10000,
    minSendingAmount: 100,
    maxSendingAmount: 1000000,
    receivingAmount: 183150,
    exchangeRate: 18.5,
    fees: { fixed: 100 },
    updatedAt: EXAMPLE.createdAt,
  },
);
