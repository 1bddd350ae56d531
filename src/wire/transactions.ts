import { Type } from '@sinclair/typebox';
import {
  CurrencyAmount,
  PageQuery,
  PurposeOfPayment,
  RemittanceInformation,
  RequestObject,
  SortOrder,
  StringEnum,
  Timestamp,
} from './common.ts';
import { component } from './component.ts';
import { EXAMPLE, USD } from './examples.ts';

export const TransactionStatus = StringEnum([
  'CREATED',
  'PENDING',
  'PROCESSING',
  'COMPLETED',
  'REJECTED',
  'FAILED',
  'REFUNDED',
  'EXPIRED',
]);
const FreeObject = Type.Object({}, { additionalProperties: true });

export const TransactionSource = Type.Object(
  {
    sourceType: StringEnum(['ACCOUNT', 'REALTIME_FUNDING', 'UMA_ADDRESS']),
    accountId: Type.Optional(Type.String()),
    customerId: Type.Optional(Type.String()),
    umaAddress: Type.Optional(Type.String()),
    currency: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const TransactionDestination = Type.Object(
  {
    destinationType: StringEnum(['ACCOUNT', 'UMA_ADDRESS', 'EXTERNAL_ACCOUNT_DETAILS']),
    accountId: Type.Optional(Type.String()),
    umaAddress: Type.Optional(Type.String()),
    paymentRail: Type.Optional(Type.String()),
    currency: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const Refund = Type.Object(
  {
    reference: Type.String(),
    initiatedAt: Timestamp,
    status: StringEnum(['PENDING', 'COMPLETED', 'FAILED']),
    settledAt: Type.Optional(Timestamp),
    reason: Type.Optional(StringEnum(['TRANSACTION_FAILED', 'USER_CANCELLATION', 'TIMEOUT'])),
  },
  { additionalProperties: false },
);

export const RateDetails = Type.Object(
  {
    counterpartyMultiplier: Type.Number(),
    counterpartyFixedFee: Type.Integer(),
    gridApiMultiplier: Type.Number(),
    gridApiFixedFee: Type.Integer(),
    gridApiVariableFeeRate: Type.Number(),
    gridApiVariableFeeAmount: Type.Integer(),
  },
  { additionalProperties: false },
);

export const PaymentInstructions = Type.Object(
  {
    accountOrWalletInfo: FreeObject,
    instructionsNotes: Type.Optional(Type.String()),
    isPlatformAccount: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** Our extension: why an incoming payment was rejected or failed, from the platform's approval answer. */
export const FailureDetails = Type.Object(
  {
    reason: Type.Optional(Type.String()),
    requiredFields: Type.Optional(Type.Array(Type.String())),
    responseStatus: Type.Optional(Type.Integer()),
    error: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const Transaction = component(
  'Transaction',
  Type.Object(
    {
      id: Type.String(),
      status: TransactionStatus,
      type: StringEnum(['OUTGOING', 'INCOMING']),
      direction: StringEnum(['DEBIT', 'CREDIT']),
      source: TransactionSource,
      destination: TransactionDestination,
      customerId: Type.Optional(Type.String()),
      platformCustomerId: Type.Optional(Type.String()),
      sentAmount: CurrencyAmount,
      receivedAmount: CurrencyAmount,
      exchangeRate: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
      fees: Type.Integer({ minimum: 0 }),
      quoteId: Type.Optional(Type.String()),
      description: Type.Optional(Type.String()),
      paymentInstructions: Type.Optional(Type.Array(PaymentInstructions)),
      counterpartyInformation: Type.Optional(FreeObject),
      reconciliationInstructions: Type.Optional(Type.Object({ reference: Type.String() })),
      failureReason: Type.Optional(Type.String()),
      failureDetails: Type.Optional(FailureDetails),
      refund: Type.Optional(Refund),
      rateDetails: Type.Optional(RateDetails),
      settledAt: Type.Optional(Timestamp),
      createdAt: Timestamp,
      updatedAt: Timestamp,
      senderUmaAddress: Type.Optional(Type.String()),
      receiverUmaAddress: Type.Optional(Type.String()),
      remittanceInformation: Type.Optional(Type.String()),
      receiptDeliveryConfirmedAt: Type.Optional(Timestamp),
    },
    { additionalProperties: false },
  ),
  {
    id: EXAMPLE.transactionId,
    status: 'COMPLETED',
    type: 'OUTGOING',
    direction: 'DEBIT',
    source: { sourceType: 'ACCOUNT', accountId: EXAMPLE.internalAccountId, currency: 'USD' },
    destination: { destinationType: 'ACCOUNT', accountId: EXAMPLE.externalAccountId, currency: 'USD' },
    customerId: EXAMPLE.customerId,
    platformCustomerId: 'user-4521',
    sentAmount: { amount: 2500, currency: USD },
    receivedAmount: { amount: 2500, currency: USD },
    fees: 0,
    description: 'Invoice 1042',
    remittanceInformation: 'INV-1042',
    settledAt: EXAMPLE.updatedAt,
    createdAt: EXAMPLE.createdAt,
    updatedAt: EXAMPLE.updatedAt,
  },
);

export const TransactionListQuery = Type.Object({
  ...PageQuery,
  customerId: Type.Optional(Type.String()),
  platformCustomerId: Type.Optional(Type.String()),
  senderAccountIdentifier: Type.Optional(Type.String()),
  receiverAccountIdentifier: Type.Optional(Type.String()),
  accountIdentifier: Type.Optional(Type.String()),
  status: Type.Optional(TransactionStatus),
  type: Type.Optional(StringEnum(['OUTGOING', 'INCOMING'])),
  reference: Type.Optional(Type.String()),
  startDate: Type.Optional(Timestamp),
  endDate: Type.Optional(Timestamp),
  sortOrder: Type.Optional(SortOrder),
});

const AccountRef = RequestObject({
  accountId: Type.String({ minLength: 1, maxLength: 200 }),
  currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3,5}$' })),
});

const transferFields = {
  source: AccountRef,
  destination: AccountRef,
  amount: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Smallest currency unit' }),
  description: Type.Optional(Type.String({ maxLength: 1000 })),
};

export const TransferRequest = component('TransferInRequest', RequestObject(transferFields), {
  source: { accountId: EXAMPLE.externalAccountId },
  destination: { accountId: EXAMPLE.internalAccountId },
  amount: 10000,
  description: 'Top-up from the linked bank account',
});

export const TransferOutRequest = component(
  'TransferOutRequest',
  RequestObject({
    ...transferFields,
    destination: RequestObject({
      ...AccountRef.properties,
      paymentRail: Type.Optional(
        Type.String({ minLength: 1, maxLength: 64, description: "One of the account's rails" }),
      ),
    }),
    remittanceInformation: Type.Optional(RemittanceInformation),
    purposeOfPayment: Type.Optional(PurposeOfPayment),
  }),
  {
    source: { accountId: EXAMPLE.internalAccountId },
    destination: { accountId: EXAMPLE.externalAccountId, paymentRail: 'ACH' },
    amount: 2500,
    description: 'Invoice 1042',
    remittanceInformation: 'INV-1042',
    purposeOfPayment: 'GOODS_OR_SERVICES',
  },
);

const UmaAddress = Type.String({ minLength: 3, maxLength: 200 });

export const SandboxUmaReceive = component(
  'SandboxUmaReceiveRequest',
  RequestObject({
    senderUmaAddress: UmaAddress,
    receivingCurrencyCode: Type.String({ minLength: 1, maxLength: 10 }),
    receivingCurrencyAmount: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
    receiverUmaAddress: Type.Optional(UmaAddress),
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  }),
  {
    senderUmaAddress: '$alice@sender.example',
    receivingCurrencyCode: 'USD',
    receivingCurrencyAmount: 1000,
    receiverUmaAddress: '$bob@payouts.example',
  },
);

/** Both bodies are optional; an empty POST is an approval (or rejection) without details. */
export const ApprovePayment = component(
  'TransactionApproveRequest',
  RequestObject({
    receiverCustomerInfo: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: "The receiver's details the sender asked for" }),
    ),
  }),
  { receiverCustomerInfo: { FULL_NAME: 'Bob Receiver' } },
);
export const RejectPayment = component(
  'TransactionRejectRequest',
  RequestObject({ reason: Type.Optional(Type.String({ maxLength: 1000 })) }),
  { reason: 'The receiving customer is not known to us' },
);

export const CancelRequest = component(
  'TransactionCancelRequest',
  RequestObject({ reason: Type.Optional(Type.String({ maxLength: 1000, description: 'Kept in the log' })) }),
  { reason: 'Sent to the wrong account' },
);

export const ConfirmRequest = component(
  'TransactionConfirmRequest',
  RequestObject({ receiptDeliveryConfirmedAt: Type.Optional(Timestamp) }),
  { receiptDeliveryConfirmedAt: EXAMPLE.updatedAt },
);
