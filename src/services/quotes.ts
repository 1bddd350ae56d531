import { present } from '../domain/assert.ts';
import { randomBytes } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { Quote as QuoteSchema, QuoteCreate } from '../http/schemas/quotes.ts';
import { accountTypeRule } from '../domain/account-types.ts';
import { AppError, invalidInput, notFound } from '../domain/errors.ts';
import { iso } from '../domain/clock.ts';
import { currency, isSupportedCurrency } from '../domain/currencies.ts';
import { newId } from '../domain/ids.ts';
import { type Price, priceReceiving, priceSending } from '../domain/pricing.ts';
import { rateAsNumber } from '../domain/rates.ts';
import { isUmaAddress } from '../domain/uma.ts';
import { sandboxTestReceiver } from '../domain/uma-receivers.ts';
import { enqueueJob } from '../jobs/queue.ts';
import { runAgainAt } from '../jobs/kinds.ts';
import type { JobWorker } from '../jobs/worker.ts';
import { fundingInstructions } from '../rails/funding-instructions.ts';
import { isPullable } from '../rails/pull.ts';
import { quoteOutcome, umaOutcome, type Outcome } from '../rails/sandbox-outcomes.ts';
import type { Db, Tx } from '../store/db.ts';
import type { ExternalAccountsTable, QuotesTable, TransactionsTable } from '../store/schema.ts';
import { keysetPage, mapPage } from '../store/paging.ts';
import type { Page, PageRequest } from '../domain/paging.ts';
import { scopeNowMs, type Ctx, type Scope, wallNowMs } from '../context.ts';
import type { CustomerService } from './customers.ts';
import type { ExternalAccountService } from './external-accounts.ts';
import type { PricedPair, RateService } from './rates.ts';
import { requireLookup } from './receiver-lookups.ts';
import {
  insertTransaction,
  moveTransaction,
  newTransaction,
  type Transaction,
  type TransactionDraft,
  type TransactionService,
} from './transactions/index.ts';
import { railOutcome, requireInternalAccount } from './transfers.ts';

export type Quote = Static<typeof QuoteSchema>;
export type QuoteInput = Static<typeof QuoteCreate>;

export function toQuote(row: QuotesTable): Quote {
  const quote: Quote = {
    id: row.id,
    status: row.status,
    createdAt: iso(row.created_at),
    expiresAt: iso(row.expires_at),
    source: JSON.parse(row.source),
    destination: JSON.parse(row.destination),
    sendingCurrency: currency(row.sending_currency),
    receivingCurrency: currency(row.receiving_currency),
    totalSendingAmount: Number(row.total_sending_amount),
    totalReceivingAmount: Number(row.total_receiving_amount),
    exchangeRate: Number(row.exchange_rate),
    feesIncluded: Number(row.fees),
    transactionId: row.transaction_id,
    rateDetails: JSON.parse(row.rate_details),
  };
  if (row.payment_instructions !== null) quote.paymentInstructions = JSON.parse(row.payment_instructions);
  if (row.counterparty_information !== null) quote.counterpartyInformation = JSON.parse(row.counterparty_information);
  return quote;
}

export function scopedQuotes(db: Db | Tx, scope: Scope) {
  return db
    .selectFrom('quotes')
    .where('quotes.platform_id', '=', scope.platformId)
    .where('quotes.environment', '=', scope.environment);
}

/** How a quote's money reaches the in-flight account when it runs. */
type FundingPath = 'INTERNAL' | 'PULL' | 'REALTIME';

interface ResolvedSource {
  echo: Record<string, string>;
  currency: string;
  accountId: string | null;
  path: FundingPath;
  customerId: string | null;
  platformCustomerId: string | null;
  umaAddress: string | null;
}

interface ResolvedDestination {
  echo: Record<string, string>;
  currency: string;
  accountId: string | null;
  umaAddress: string | null;
  outcome: () => Outcome;
  counterparty: Record<string, string> | null;
}

function required<T>(value: T | undefined, field: string, why: string): T {
  if (value === undefined) throw invalidInput(field, `${field} is required ${why}`, 'required');
  return value;
}

/** What the rail tells a sender about the payee, from the beneficiary on file (keys as the API names them). */
function counterpartyOf(account: ExternalAccountsTable): Record<string, string> | null {
  const beneficiary = (JSON.parse(account.account_info) as { beneficiary?: Record<string, unknown> }).beneficiary;
  if (!beneficiary) return null;
  const info: Record<string, string> = {};
  const name =
    beneficiary.fullName ??
    beneficiary.legalName ??
    (beneficiary.businessInfo as { legalName?: string } | undefined)?.legalName;
  if (typeof name === 'string') info.FULL_NAME = name;
  if (typeof beneficiary.birthDate === 'string') info.BIRTH_DATE = beneficiary.birthDate;
  if (typeof beneficiary.nationality === 'string') info.NATIONALITY = beneficiary.nationality;
  return Object.keys(info).length ? info : null;
}

/** What a quote is priced from: the request, its resolved ends, and when. */
interface QuoteTerms {
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
interface PricedQuote extends QuoteTerms {
  price: Price;
  exchangeRate: string;
  rateDetails: string;
  reference: string | null;
  paymentInstructions: string | null;
  counterparty: string | null;
}

/** Prices the terms with the pair's rate and fees. Raises AMOUNT_OUT_OF_RANGE. */
function priceQuote(terms: QuoteTerms, pair: PricedPair): PricedQuote {
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
function quoteRow(scope: Scope, q: PricedQuote, transactionId: string): QuotesTable {
  const now = BigInt(q.nowMs);
  return {
    id: q.quoteId,
    platform_id: scope.platformId,
    environment: scope.environment,
    status: 'PENDING',
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
function transactionDraft(q: PricedQuote, outcome: Outcome): TransactionDraft {
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
    reference: q.reference,
    payment_instructions: q.paymentInstructions,
    counterparty_information: q.counterparty,
    outcome: JSON.stringify(outcome),
  };
}

export function makeQuoteService(
  ctx: Ctx,
  worker: JobWorker,
  transactions: TransactionService,
  externalAccounts: ExternalAccountService,
  customers: CustomerService,
  rates: RateService,
) {
  const { db } = ctx.store;

  async function resolveSource(trx: Tx, scope: Scope, input: QuoteInput['source']): Promise<ResolvedSource> {
    if (input.sourceType === 'REALTIME_FUNDING') {
      const code = required(input.currency, 'source.currency', 'for REALTIME_FUNDING');
      if (!isSupportedCurrency(code))
        throw new AppError('INVALID_CURRENCY', `source.currency ${code} is not supported`, {
          field: 'source.currency',
        });
      const customer = input.customerId ? await customers.requireActive(trx, scope, input.customerId) : undefined;
      const echo: Record<string, string> = { sourceType: 'REALTIME_FUNDING', currency: code };
      if (customer) echo.customerId = customer.id;
      return {
        echo,
        currency: code,
        accountId: null,
        path: 'REALTIME',
        customerId: customer?.id ?? null,
        platformCustomerId: customer?.platform_customer_id ?? null,
        umaAddress: customer?.uma_address ?? null,
      };
    }
    const accountId = required(input.accountId, 'source.accountId', 'for an ACCOUNT source');
    if (accountId.startsWith('ExternalAccount:')) {
      const account = await externalAccounts.requireUsableExternalAccount(trx, scope, accountId, 'source.accountId');
      if (!isPullable(account.account_type))
        throw invalidInput(
          'source.accountId',
          `${account.account_type} accounts cannot be pulled from, so they cannot fund a quote`,
          'pullable',
        );
      const customer = account.customer_id ? await customers.requireActive(trx, scope, account.customer_id) : undefined;
      return {
        echo: { sourceType: 'ACCOUNT', accountId, ...(customer ? { customerId: customer.id } : {}) },
        currency: account.currency,
        accountId,
        path: 'PULL',
        customerId: customer?.id ?? null,
        platformCustomerId: customer?.platform_customer_id ?? null,
        umaAddress: customer?.uma_address ?? null,
      };
    }
    const { account, owner, umaAddress: uma } = await requireInternalAccount(trx, scope, accountId, 'source.accountId');
    if (input.customerId !== undefined && input.customerId !== owner.customer_id) {
      throw invalidInput('source.customerId', `source.customerId does not own ${accountId}`, 'owner');
    }
    return {
      echo: { sourceType: 'ACCOUNT', accountId, ...(owner.customer_id ? { customerId: owner.customer_id } : {}) },
      currency: account.currency,
      accountId,
      path: 'INTERNAL',
      customerId: owner.customer_id,
      platformCustomerId: owner.platform_customer_id,
      umaAddress: uma,
    };
  }

  function accountDestination(
    account: ExternalAccountsTable,
    echo: Record<string, string>,
    paymentRail: string | undefined,
  ): ResolvedDestination {
    if (
      paymentRail !== undefined &&
      !(accountTypeRule(account.account_type)?.paymentRails ?? []).includes(paymentRail)
    ) {
      throw invalidInput(
        'destination.paymentRail',
        `${paymentRail} is not a rail ${account.account_type} accounts support`,
        'paymentRail',
      );
    }
    return {
      echo: { ...echo, accountId: account.id, ...(paymentRail ? { paymentRail } : {}), currency: account.currency },
      currency: account.currency,
      accountId: account.id,
      umaAddress: null,
      outcome: () => quoteOutcome(account.primary_identifier),
      counterparty: counterpartyOf(account),
    };
  }

  async function resolveDestination(
    trx: Tx,
    scope: Scope,
    input: QuoteInput['destination'],
  ): Promise<ResolvedDestination> {
    switch (input.destinationType) {
      case 'ACCOUNT': {
        const accountId = required(input.accountId, 'destination.accountId', 'for an ACCOUNT destination');
        const account = await externalAccounts.requireUsableExternalAccount(
          trx,
          scope,
          accountId,
          'destination.accountId',
        );
        return accountDestination(account, { destinationType: 'ACCOUNT' }, input.paymentRail);
      }
      case 'EXTERNAL_ACCOUNT_DETAILS': {
        const details = required(
          input.externalAccountDetails,
          'destination.externalAccountDetails',
          'for an EXTERNAL_ACCOUNT_DETAILS destination',
        );
        let created;
        try {
          created = await externalAccounts.createExternalAccountInTx(trx, scope, details as never);
        } catch (err) {
          // The account's own rules speak of `accountInfo.x`; here that field lives deeper in the quote.
          if (err instanceof AppError && typeof err.details?.field === 'string') {
            throw new AppError(err.code, err.message, {
              ...err.details,
              field: `destination.externalAccountDetails.${err.details.field}`,
            });
          }
          throw err;
        }
        const account = await externalAccounts.requireUsableExternalAccount(
          trx,
          scope,
          created.id,
          'destination.externalAccountDetails',
        );
        return accountDestination(account, { destinationType: 'EXTERNAL_ACCOUNT_DETAILS' }, input.paymentRail);
      }
      case 'UMA_ADDRESS': {
        const umaAddress = required(input.umaAddress, 'destination.umaAddress', 'for a UMA_ADDRESS destination');
        if (scope.environment !== 'sandbox') {
          throw new AppError(
            'NOT_IMPLEMENTED',
            'UMA payments need a UMA network connector; this installation has none configured for production',
          );
        }
        const receiver = isUmaAddress(umaAddress) ? sandboxTestReceiver(umaAddress) : undefined;
        if (!receiver)
          throw new AppError(
            'RECEIVER_NOT_FOUND',
            `No UMA receiver ${umaAddress} in the sandbox; use one of the documented test addresses`,
            { field: 'destination.umaAddress' },
          );
        const code = input.currency ?? receiver.currencies[0]!;
        if (!receiver.currencies.includes(code))
          throw invalidInput(
            'destination.currency',
            `${umaAddress} receives ${receiver.currencies.join(', ')}, not ${code}`,
            'currency',
          );
        return {
          echo: { destinationType: 'UMA_ADDRESS', umaAddress, currency: code },
          currency: code,
          accountId: null,
          umaAddress,
          outcome: () => umaOutcome(receiver),
          counterparty: null,
        };
      }
    }
  }

  /**
   * A lookupId (from GET /receiver/...) must be this platform's and name the receiver being paid. It is
   * optional here: the sandbox's test receivers and accounts need no lookup to be paid.
   */
  async function checkLookup(trx: Tx, scope: Scope, lookupId: string, destination: ResolvedDestination): Promise<void> {
    const { receiver } = await requireLookup(trx, scope, lookupId);
    const matches =
      receiver.type === 'UMA_ADDRESS'
        ? receiver.umaAddress === destination.umaAddress
        : receiver.accountId === destination.accountId;
    if (!matches)
      throw invalidInput(
        'lookupId',
        `${lookupId} looked up another receiver than this quote's destination`,
        'lookupReceiver',
      );
  }

  async function load(trx: Db | Tx, scope: Scope, quoteId: string, lock = false): Promise<QuotesTable> {
    let q = scopedQuotes(trx, scope).selectAll().where('quotes.id', '=', quoteId);
    if (lock && ctx.store.engine === 'postgres') q = q.forUpdate();
    const row = await q.executeTakeFirst();
    if (!row) throw notFound('Quote', quoteId, 'QUOTE_NOT_FOUND');
    return row;
  }

  /**
   * Claims a PENDING, unexpired quote for running. The conditional update is what makes a quote run at most
   * once: of any number of concurrent calls exactly one matches the row, the others see a 409.
   */
  async function claim(trx: Tx, scope: Scope, quote: QuotesTable): Promise<void> {
    const now = scopeNowMs(ctx, scope);
    if (quote.status !== 'PENDING')
      throw new AppError('QUOTE_NOT_PENDING', `Quote ${quote.id} is ${quote.status}; only a PENDING quote can run`, {
        status: quote.status,
      });
    if (now >= Number(quote.expires_at))
      throw new AppError('QUOTE_EXPIRED', `Quote ${quote.id} expired at ${iso(quote.expires_at)}; create a new quote`);
    const claimed = await trx
      .updateTable('quotes')
      .set({ status: 'PROCESSING', updated_at: BigInt(now) })
      .where('id', '=', quote.id)
      .where('status', '=', 'PENDING')
      .executeTakeFirst();
    if (claimed.numUpdatedRows !== 1n)
      throw new AppError('QUOTE_NOT_PENDING', `Quote ${quote.id} is already being executed`);
  }

  /** Funds the quote's transaction and runs it: debit (or receipt), PROCESSING, and the rail's outcome. */
  async function run(
    trx: Tx,
    scope: Scope,
    quote: QuotesTable,
    funding: 'INTERNAL' | 'EXTERNAL',
  ): Promise<TransactionsTable> {
    const row = (await transactions.loadForUpdate(trx, scope, quote.transaction_id))!;
    const funded = await transactions.fund(trx, scope, row, funding);
    return (await transactions.process(trx, scope, funded)) ?? funded;
  }

  async function execute(scope: Scope, quoteId: string): Promise<Quote> {
    await ctx.store.tx(async (trx) => {
      const quote = await load(trx, scope, quoteId, true);
      const source = JSON.parse(quote.source) as { sourceType: string; accountId?: string };
      if (source.sourceType === 'REALTIME_FUNDING') {
        throw new AppError(
          'QUOTE_NOT_EXECUTABLE',
          'A REALTIME_FUNDING quote runs when its funds arrive (see paymentInstructions); it cannot be executed',
          { field: 'quoteId' },
        );
      }
      await claim(trx, scope, quote);
      await run(trx, scope, quote, source.accountId?.startsWith('ExternalAccount:') ? 'EXTERNAL' : 'INTERNAL');
    });
    worker.kick();
    return toQuote(await load(db, scope, quoteId));
  }

  worker.registerInTransaction('quote.expire', async (trx, { quoteId }, _job, scope) => {
    const quote = await scopedQuotes(trx, scope).selectAll().where('id', '=', quoteId).executeTakeFirst();
    if (!quote || quote.status !== 'PENDING') return;
    // Jobs run on wall-clock time; the quote expires on its platform's clock. Not yet: come back then.
    const earlyByMs = Number(quote.expires_at) - scopeNowMs(ctx, scope);
    if (earlyByMs > 0) return runAgainAt(wallNowMs(ctx) + earlyByMs);
    const row = await transactions.loadForUpdate(trx, scope, quote.transaction_id);
    if (row?.status === 'PENDING') await moveTransaction(ctx, trx, scope, row, { to: 'EXPIRED' });
    return undefined;
  });

  return {
    execute,

    async create(scope: Scope, input: QuoteInput): Promise<Quote> {
      // Preconditions first: nothing is resolved or written for a request that cannot be honoured.
      if (input.immediatelyExecute && input.source.sourceType === 'REALTIME_FUNDING') {
        throw invalidInput(
          'immediatelyExecute',
          'immediatelyExecute needs an account source; a REALTIME_FUNDING quote runs when its funds arrive',
          'source',
        );
      }
      const quoteId = newId('Quote');
      await ctx.store.tx(async (trx) => {
        const source = await resolveSource(trx, scope, input.source);
        const destination = await resolveDestination(trx, scope, input.destination);
        if (input.lookupId !== undefined) await checkLookup(trx, scope, input.lookupId, destination);
        const nowMs = scopeNowMs(ctx, scope);
        const terms = { quoteId, source, destination, input, nowMs, ttlMs: ctx.config.quoteTtlMs };
        const priced = priceQuote(terms, rates.pair(scope, source.currency, destination.currency));
        const payment = newTransaction(scope, nowMs, transactionDraft(priced, railOutcome(scope, destination.outcome)));
        await insertTransaction(trx, scope, payment);
        await trx
          .insertInto('quotes')
          .values(quoteRow(scope, priced, payment.id))
          .execute();
        await enqueueJob(trx, scope, 'quote.expire', { quoteId }, wallNowMs(ctx), ctx.config.quoteTtlMs);
      });
      if (input.immediatelyExecute) return execute(scope, quoteId);
      return toQuote(await load(db, scope, quoteId));
    },

    async get(scope: Scope, quoteId: string): Promise<Quote> {
      return toQuote(await load(db, scope, quoteId));
    },

    async list(
      scope: Scope,
      f: {
        customerId?: string | undefined;
        sendingAccountId?: string | undefined;
        receivingAccountId?: string | undefined;
        sendingUmaAddress?: string | undefined;
        receivingUmaAddress?: string | undefined;
        status?: string | undefined;
        createdAfter?: number | undefined;
        createdBefore?: number | undefined;
      },
      page: PageRequest,
    ): Promise<Page<Quote>> {
      let q = scopedQuotes(db, scope);
      if (f.customerId !== undefined) q = q.where('quotes.customer_id', '=', f.customerId);
      if (f.sendingAccountId !== undefined) q = q.where('quotes.sending_account_id', '=', f.sendingAccountId);
      if (f.receivingAccountId !== undefined) q = q.where('quotes.receiving_account_id', '=', f.receivingAccountId);
      if (f.sendingUmaAddress !== undefined) q = q.where('quotes.sending_uma_address', '=', f.sendingUmaAddress);
      if (f.receivingUmaAddress !== undefined) q = q.where('quotes.receiving_uma_address', '=', f.receivingUmaAddress);
      if (f.status !== undefined) q = q.where('quotes.status', '=', f.status as QuotesTable['status']);
      if (f.createdAfter !== undefined) q = q.where('quotes.created_at', '>=', BigInt(f.createdAfter));
      if (f.createdBefore !== undefined) q = q.where('quotes.created_at', '<=', BigInt(f.createdBefore));
      return mapPage(await keysetPage<QuotesTable>(q, 'quotes', page), toQuote);
    },

    /**
     * Sandbox: the payer sends the funds a REALTIME_FUNDING quote asked for. The matching amount runs the
     * quote; any other amount (or currency) fails it with FUNDING_AMOUNT_MISMATCH and the funds go back.
     */
    async sandboxSend(
      scope: Scope,
      input: {
        quoteId?: string | undefined;
        reference?: string | undefined;
        currencyCode?: string | undefined;
        currencyAmount?: number | undefined;
      },
    ): Promise<Transaction> {
      if (scope.environment !== 'sandbox')
        throw new AppError('FORBIDDEN', 'Sandbox endpoints cannot be called with production credentials');
      if (input.quoteId === undefined && input.reference === undefined)
        throw invalidInput('quoteId', 'give quoteId or the reference from the payment instructions', 'required');
      const transactionId = await ctx.store.tx(async (trx) => {
        let quote: QuotesTable;
        if (input.quoteId !== undefined) quote = await load(trx, scope, input.quoteId, true);
        else {
          const found = await scopedQuotes(trx, scope)
            .selectAll()
            .where('quotes.reference', '=', input.reference!)
            .executeTakeFirst();
          if (!found)
            throw new AppError('REFERENCE_NOT_FOUND', `No quote has the payment reference ${input.reference}`, {
              field: 'reference',
            });
          quote = found;
        }
        if (quote.reference === null)
          throw invalidInput('quoteId', `Quote ${quote.id} is funded from an account; execute it instead`, 'source');
        await claim(trx, scope, quote);
        const currencyCode = input.currencyCode ?? quote.sending_currency;
        const amount = input.currencyAmount === undefined ? quote.total_sending_amount : BigInt(input.currencyAmount);
        if (currencyCode === quote.sending_currency && amount === quote.total_sending_amount) {
          await run(trx, scope, quote, 'EXTERNAL');
        } else {
          // Funds that do not match are not accepted into the payment (nothing is posted): it fails at once.
          const row = (await transactions.loadForUpdate(trx, scope, quote.transaction_id))!;
          const processing = await moveTransaction(ctx, trx, scope, row, { to: 'PROCESSING' });
          await transactions.fail(trx, scope, present(processing, 'a claimed quote moves its payment'), {
            reason: 'FUNDING_AMOUNT_MISMATCH',
            refund: 'COMPLETED',
            refundReason: 'TRANSACTION_FAILED',
          });
        }
        return quote.transaction_id;
      });
      worker.kick();
      return transactions.get(scope, transactionId);
    },
  };
}

export type QuoteService = ReturnType<typeof makeQuoteService>;
