// Pricing a quote, pure: the terms and a rate pair give one PricedQuote, from which the quote row and its
// transaction are both mapped.
import { randomBytes } from 'node:crypto';
import { AppError } from '../../domain/errors.ts';
import { type Price, priceReceiving, priceSending } from '../../domain/pricing.ts';
import { rateAsNumber } from '../../domain/rates.ts';
import { fundingInstructions } from '../../rails/funding-instructions.ts';
import { type Outcome } from '../../rails/sandbox-outcomes.ts';
import type { QuotesTable } from '../../store/schema.ts';
import { type Scope } from '../../context.ts';
import type { PricedPair } from '../rates.ts';
import { type TransactionDraft } from '../transactions/index.ts';
import type { ResolvedDestination, ResolvedSource } from './resolution.ts';
import type { QuoteInput } from './queries.ts';

/** What a quote is priced from: the request, its resolved ends, and when. */
export interface QuoteTerms {
  quoteId: string;
  source: ResolvedSource;
  destination: ResolvedDestination;
  input: QuoteInput;
  nowMs: number;
  ttlMs: number;
}

/**
 * A quote priced once. The quote row and its transaction are both mapped from this value, so the amounts,
 * rate, references and parties they share are computed in one place.
 */
export interface PricedQuote extends QuoteTerms {
  price: Price;
  exchangeRate: string;
  rateDetails: string;
  reference: string | null;
  paymentInstructions: string | null;
  counterparty: string | null;
}

/** Prices the terms with the pair's rate and fees. Raises AMOUNT_OUT_OF_RANGE. */
export function priceQuote(terms: QuoteTerms, pair: PricedPair): PricedQuote {
  const { source, destination, input } = terms;
  const { rate, fees, limits } = pair;
  const amount = BigInt(input.lockedCurrencyAmount);
  const price =
    input.lockedCurrencySide === 'SENDING' ? priceSending(amount, rate, fees) : priceReceiving(amount, rate, fees);
  if (!price || price.totalSendingMinor < limits.minMinor || price.totalSendingMinor > limits.maxMinor) {
    throw new AppError(
      'AMOUNT_OUT_OF_RANGE',
      `The sending amount must be from ${limits.minMinor} to ${limits.maxMinor} ${source.currency} ` +
        `(smallest unit) and cover the fees`,
      { field: 'lockedCurrencyAmount', min: Number(limits.minMinor), max: Number(limits.maxMinor) },
    );
  }
  const reference = source.path === 'REALTIME' ? `PAY-${randomBytes(6).toString('hex').toUpperCase()}` : null;
  const rateDetails = {
    counterpartyMultiplier: 1,
    counterpartyFixedFee: 0,
    gridApiMultiplier: rateAsNumber(rate),
    gridApiFixedFee: Number(fees.fixedMinor),
    gridApiVariableFeeRate: Number(fees.variableBps) / 10_000,
    gridApiVariableFeeAmount: Number(price.variableFeeMinor),
  };
  const purpose = input.purposeOfPayment ? { PURPOSE_OF_PAYMENT: input.purposeOfPayment } : {};
  const counterparty =
    destination.counterparty || input.purposeOfPayment ? { ...destination.counterparty, ...purpose } : null;
  return {
    ...terms,
    price,
    exchangeRate: String(rateAsNumber(rate)),
    rateDetails: JSON.stringify(rateDetails),
    reference,
    paymentInstructions: reference ? JSON.stringify(fundingInstructions(source.currency, reference)) : null,
    counterparty: counterparty && JSON.stringify(counterparty),
  };
}

/** The quote's own row. */
export function quoteRow(scope: Scope, q: PricedQuote, transactionId: string): QuotesTable {
  const now = BigInt(q.nowMs);
  return {
    id: q.quoteId,
    platform_id: scope.platformId,
    environment: scope.environment,
    source: JSON.stringify(q.source.echo),
    destination: JSON.stringify(q.destination.echo),
    sending_account_id: q.source.accountId,
    receiving_account_id: q.destination.accountId,
    customer_id: q.source.customerId,
    sending_uma_address: q.source.umaAddress,
    receiving_uma_address: q.destination.umaAddress,
    sending_currency: q.source.currency,
    receiving_currency: q.destination.currency,
    total_sending_amount: q.price.totalSendingMinor,
    total_receiving_amount: q.price.totalReceivingMinor,
    fees: q.price.feesMinor,
    exchange_rate: q.exchangeRate,
    rate_details: q.rateDetails,
    transaction_id: transactionId,
    payment_instructions: q.paymentInstructions,
    reference: q.reference,
    counterparty_information: q.counterparty,
    expires_at: now + BigInt(q.ttlMs),
    created_at: now,
    updated_at: now,
  };
}

/** The PENDING transaction a quote owns from creation, with the rail's planned outcome. */
export function transactionDraft(q: PricedQuote, outcome: Outcome): TransactionDraft {
  const { source, destination } = q;
  const sourceEcho =
    source.path === 'REALTIME'
      ? source.echo
      : { sourceType: 'ACCOUNT', accountId: source.accountId, currency: source.currency };
  const destinationEcho = destination.umaAddress
    ? { destinationType: 'UMA_ADDRESS', umaAddress: destination.umaAddress, currency: destination.currency }
    : { destinationType: 'ACCOUNT', accountId: destination.accountId, currency: destination.currency };
  return {
    type: 'OUTGOING',
    flow: 'QUOTE',
    source: JSON.stringify(sourceEcho),
    destination: JSON.stringify(destinationEcho),
    source_account_id: source.accountId,
    destination_account_id: destination.accountId,
    customer_id: source.customerId,
    platform_customer_id: source.platformCustomerId,
    sender_uma_address: source.umaAddress,
    receiver_uma_address: destination.umaAddress,
    sent_amount: q.price.totalSendingMinor,
    sent_currency: source.currency,
    received_amount: q.price.totalReceivingMinor,
    received_currency: destination.currency,
    fees: q.price.feesMinor,
    exchange_rate: q.exchangeRate,
    rate_details: q.rateDetails,
    quote_id: q.quoteId,
    description: q.input.description ?? null,
    remittance_information: q.input.remittanceInformation ?? null,
    reference: q.reference,
    payment_instructions: q.paymentInstructions,
    counterparty_information: q.counterparty,
    outcome: JSON.stringify(outcome),
  };
}
