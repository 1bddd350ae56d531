// Running a quote: claiming it (at most once), funding and processing its transaction, expiry, and the
// sandbox's arrival of funds for a REALTIME_FUNDING quote.
import { present } from '../../domain/assert.ts';
import { AppError, conflict, invalidInput, notFound } from '../../domain/errors.ts';
import { iso } from '../../domain/clock.ts';
import { runAgainAt } from '../../jobs/kinds.ts';
import { callOffJob, ownedJobId } from '../../jobs/queue.ts';
import type { JobWorker } from '../../jobs/worker.ts';
import type { Tx } from '../../store/db.ts';
import type { QuotesTable, TransactionsTable } from '../../store/schema.ts';
import { inScope, scopeNowMs, type Ctx, type Scope, wallNowMs } from '../../context.ts';
import { loadScope } from '../../platforms.ts';
import type { TransactionStatus } from '../../domain/transactions.ts';
import { keepLocked, moveTransaction, type Transaction, type TransactionService } from '../transactions/index.ts';
import { type Quote, scopedQuoteRows, toQuote } from './queries.ts';
import { statement } from '../../store/compiled.ts';
import { withDeferredWrites } from '../../store/deferred-writes.ts';
import { everyColumnOf, prefixedColumns, splitPrefixed } from '../../store/joined-rows.ts';

/** What running a quote needs. */
export interface QuoteRunner {
  ctx: Ctx;
  worker: JobWorker;
  transactions: TransactionService;
}

/**
 * Why a quote cannot run, from its row and its payment's status: funded in real time (when `funded`), no longer
 * PENDING, or expired on its platform's clock. Undefined when it can run.
 */
function refusal(
  ctx: Ctx,
  scope: Scope,
  quote: QuotesTable,
  status: TransactionStatus,
  funded: boolean,
): AppError | undefined {
  if (funded && quote.reference !== null)
    return new AppError(
      'INVALID_INPUT',
      'A REALTIME_FUNDING quote runs when its funds arrive (see paymentInstructions); it cannot be executed',
      { field: 'quoteId', rule: 'executable', reason: 'QUOTE_NOT_EXECUTABLE' },
    );
  if (status !== 'PENDING')
    return conflict('QUOTE_NOT_PENDING', `Quote ${quote.id} is ${status}; only a PENDING quote can run`, { status });
  if (scopeNowMs(ctx, scope) >= Number(quote.expires_at))
    return new AppError('QUOTE_EXPIRED', `Quote ${quote.id} expired at ${iso(quote.expires_at)}; create a new quote`);
  return undefined;
}

const quoteRow = statement((db, v: { id: string }) => db.selectFrom('quotes').selectAll().where('id', '=', v.id));

/** The caller's quote, its own row: its status is read from its payment, under lock, by whoever runs it. */
async function ownQuote(trx: Tx, scope: Scope, quoteId: string): Promise<QuotesTable | undefined> {
  const quote = await quoteRow.first(trx, { id: quoteId });
  return quote && inScope(quote, scope) ? quote : undefined;
}

/** ownQuote for a caller that names the quote: raises QUOTE_NOT_FOUND when it is not the caller's. */
async function namedQuote(trx: Tx, scope: Scope, quoteId: string): Promise<QuotesTable> {
  const quote = await ownQuote(trx, scope, quoteId);
  if (!quote) throw notFound('Quote', quoteId, 'QUOTE_NOT_FOUND');
  return quote;
}

/** Read beside its payment's columns, a quote's carry this prefix. */
const QUOTE = 'quote__';
const QUOTE_COLUMNS = everyColumnOf<QuotesTable>()([
  'id',
  'platform_id',
  'environment',
  'source',
  'destination',
  'sending_account_id',
  'receiving_account_id',
  'customer_id',
  'sending_uma_address',
  'receiving_uma_address',
  'sending_currency',
  'receiving_currency',
  'total_sending_amount',
  'total_receiving_amount',
  'fees',
  'exchange_rate',
  'rate_details',
  'transaction_id',
  'payment_instructions',
  'reference',
  'counterparty_information',
  'expires_at',
  'created_at',
  'updated_at',
]);

/**
 * A quote with its payment, the payment locked (SQLite's write lock already is), in one statement. By id
 * alone, the scope checked by the caller: given the platform too, PostgreSQL's generic plan for the prepared
 * statement walked the platform's quotes by another index (12,800 rows for one, measured), where the primary
 * key finds one.
 */
const quoteWithLockedPayment = statement((db, { id }: { id: string }, engine) => {
  const q = db
    .selectFrom('quotes')
    .innerJoin('transactions', 'transactions.id', 'quotes.transaction_id')
    .selectAll('transactions')
    .select(prefixedColumns('quotes', QUOTE_COLUMNS, QUOTE))
    .where('quotes.id', '=', id);
  return engine === 'postgres' ? q.forUpdate('transactions') : q;
});

/**
 * namedQuote for the caller that runs the quote, with its payment read and locked in the same statement (a
 * round trip fewer on PostgreSQL): claim's loadForUpdate takes the payment from there. Another platform's
 * quote is refused as one that does not exist; its payment's lock ends with the refusal.
 */
async function namedQuoteLockingPayment(trx: Tx, scope: Scope, quoteId: string): Promise<QuotesTable> {
  const row = await quoteWithLockedPayment.first(trx, { id: quoteId });
  const split = row && splitPrefixed(row, QUOTE);
  if (!split || !inScope(split.prefixed, scope)) throw notFound('Quote', quoteId, 'QUOTE_NOT_FOUND');
  keepLocked(trx, [split.plain]);
  return split.prefixed;
}

/** The quote's payment, locked for the caller's transaction: what a quote's status is read from. */
async function lockPayment(runner: QuoteRunner, trx: Tx, scope: Scope, quote: QuotesTable) {
  return present(
    await runner.transactions.loadForUpdate(trx, scope, quote.transaction_id),
    'a quote owns its transaction from creation',
  );
}

/**
 * Claims a quote for running: locks its payment and checks it may run (see refusal), then calls off its
 * expiry. The lock is what makes a quote run at most once: of any number of concurrent calls one holds it,
 * and the others read the payment it moved once it commits (SQLite's one writer is the same lock).
 */
async function claim(
  runner: QuoteRunner,
  trx: Tx,
  scope: Scope,
  quote: QuotesTable,
  funded: boolean,
): Promise<TransactionsTable> {
  const { ctx } = runner;
  const payment = await lockPayment(runner, trx, scope, quote);
  const failure = refusal(ctx, scope, quote, payment.status, funded);
  if (failure) throw failure;
  // Funded and still PENDING: it ran, and waits for its bank file (a batch connector, lifecycle.ts holdForBatch).
  if (payment.funding !== null)
    throw conflict('QUOTE_NOT_PENDING', `Quote ${quote.id} ran already; its payment waits for its bank file`, {
      status: payment.status,
    });
  await callOffJob(trx, ownedJobId(quote.id), wallNowMs(ctx));
  return payment;
}

/**
 * Funds the quote's payment and runs it: debit (or receipt), PROCESSING, and the rail's outcome. Answers the
 * payment as it left it (undefined when it did not move).
 */
async function run(
  { transactions }: QuoteRunner,
  trx: Tx,
  scope: Scope,
  payment: TransactionsTable,
  funding: 'INTERNAL' | 'EXTERNAL',
): Promise<TransactionsTable | undefined> {
  const funded = await transactions.fund(trx, scope, payment, funding);
  return transactions.process(trx, scope, funded);
}

/**
 * Runs a quote funded from an account, and answers it as its run left it (a quote's status is its payment's),
 * from the rows the run wrote rather than read back.
 */
export async function executeQuote(runner: QuoteRunner, scope: Scope, quoteId: string): Promise<Quote> {
  const { ctx, worker } = runner;
  const ran = await ctx.store.tx(async (trx) => {
    const quote = await namedQuoteLockingPayment(trx, scope, quoteId);
    const payment = await claim(runner, trx, scope, quote, true);
    const source = JSON.parse(quote.source) as { accountId?: string };
    const funding = source.accountId?.startsWith('ExternalAccount:') ? 'EXTERNAL' : 'INTERNAL';
    const moved = await run(runner, trx, scope, payment, funding);
    return { ...quote, status: (moved ?? payment).status };
  });
  worker.kick();
  return toQuote(ran);
}

/**
 * The expiry step of a quote: a PENDING quote whose time has come on its platform's clock expires with its
 * transaction. Answers how many milliseconds it is still early (0 when it expired or has nothing to expire).
 */
export async function expireIfDue(runner: QuoteRunner, trx: Tx, scope: Scope, quoteId: string): Promise<number> {
  const { ctx } = runner;
  const quote = await ownQuote(trx, scope, quoteId);
  if (!quote) return 0;
  const payment = await lockPayment(runner, trx, scope, quote);
  if (payment.status !== 'PENDING') return 0;
  const earlyByMs = Number(quote.expires_at) - scopeNowMs(ctx, scope);
  if (earlyByMs > 0) return earlyByMs;
  await moveTransaction(ctx, trx, scope, payment, { to: 'EXPIRED' });
  return 0;
}

/** A quote that was not executed in time expires, on its platform's clock. */
export function registerQuoteExpiry(runner: QuoteRunner): void {
  const { ctx, worker } = runner;
  worker.registerInTransaction('quote.expire', async (trx, { quoteId }, _job, scope) => {
    // Jobs run on wall-clock time; the quote expires on its platform's clock. Not yet: come back then.
    const earlyByMs = await expireIfDue(runner, trx, scope, quoteId);
    return earlyByMs > 0 ? runAgainAt(wallNowMs(ctx) + earlyByMs) : undefined;
  });
}

/**
 * Sandbox: the payer sends the funds a REALTIME_FUNDING quote asked for. The matching amount runs the
 * quote; any other amount (or currency) fails it with FUNDING_AMOUNT_MISMATCH and the funds go back.
 */
export async function sandboxSend(
  runner: QuoteRunner,
  scope: Scope,
  input: {
    quoteId?: string | undefined;
    reference?: string | undefined;
    currencyCode?: string | undefined;
    currencyAmount?: number | undefined;
  },
): Promise<Transaction> {
  const { ctx, worker, transactions } = runner;
  if (scope.environment !== 'sandbox')
    throw new AppError('FORBIDDEN', 'Sandbox endpoints cannot be called with production credentials');
  if (input.quoteId === undefined && input.reference === undefined)
    throw invalidInput('quoteId', 'give quoteId or the reference from the payment instructions', 'required');
  const transactionId = await ctx.store.tx(async (trx) => {
    let quote: QuotesTable;
    if (input.quoteId !== undefined) quote = await namedQuote(trx, scope, input.quoteId);
    else {
      const found = await scopedQuoteRows(trx, scope)
        .selectAll()
        .where('quotes.reference', '=', present(input.reference, 'a quote id or a reference was given'))
        .executeTakeFirst();
      if (!found)
        throw new AppError('REFERENCE_NOT_FOUND', `No quote has the payment reference ${input.reference}`, {
          field: 'reference',
        });
      quote = found;
    }
    if (quote.reference === null)
      throw invalidInput('quoteId', `Quote ${quote.id} is funded from an account; execute it instead`, 'source');
    await fundQuote(runner, trx, scope, quote, {
      currency: input.currencyCode ?? quote.sending_currency,
      amount: input.currencyAmount === undefined ? quote.total_sending_amount : BigInt(input.currencyAmount),
    });
    return quote.transaction_id;
  });
  worker.kick();
  return transactions.get(scope, transactionId);
}

/** Money that arrived for a REALTIME_FUNDING quote: what the payer sent, in minor units of `currency`. */
export interface ArrivedFunds {
  currency: string;
  amount: bigint;
}

/**
 * The funding step, wherever the payer's money arrives (the sandbox's send, a bank's credit notification):
 * in the caller's transaction, claims the quote (raises when it is no longer PENDING or has expired) and,
 * for the quoted amount in the quoted currency, funds and runs its payment. Any other amount or currency is
 * not accepted into the payment (nothing is posted): it fails at once with FUNDING_AMOUNT_MISMATCH, its
 * refund saying the funds go back.
 */
export async function fundQuote(
  runner: QuoteRunner,
  trx: Tx,
  scope: Scope,
  quote: QuotesTable,
  funds: ArrivedFunds,
): Promise<'FUNDED' | 'MISMATCH'> {
  const { ctx, transactions } = runner;
  const payment = await claim(runner, trx, scope, quote, false);
  if (funds.currency === quote.sending_currency && funds.amount === quote.total_sending_amount) {
    await run(runner, trx, scope, payment, 'EXTERNAL');
    return 'FUNDED';
  }
  const processing = await moveTransaction(ctx, trx, scope, payment, { to: 'PROCESSING' });
  await transactions.fail(trx, scope, present(processing, 'a claimed quote moves its payment'), {
    reason: 'FUNDING_AMOUNT_MISMATCH',
    refund: 'COMPLETED',
    refundReason: 'TRANSACTION_FAILED',
  });
  return 'MISMATCH';
}

/** What a credit did: funded its quote, failed it on the amount, or matched nothing it could fund. */
export interface CreditMatch {
  result: 'FUNDED' | 'MISMATCH' | 'UNMATCHED';
  quoteId?: string;
  transactionId?: string;
  /** Why a credit that names a quote did not fund it (expired, already funded). */
  why?: string;
}

/**
 * A production quote's reference, on any platform: each platform's own index (platform, environment,
 * reference) answers it, one platform after the other (a reference is random, 48 bits: one quote at most).
 */
const quoteByReference = statement((db, v: { reference: string }) =>
  db
    .selectFrom('quotes')
    .selectAll()
    .where('platform_id', 'in', db.selectFrom('platforms').select('id'))
    .where('environment', '=', 'production')
    .where('reference', '=', v.reference),
);

/**
 * Production's funding by reference: money a bank says arrived with `reference` funds the REALTIME_FUNDING
 * quote whose payment instructions gave it out (fundQuote), in the caller's transaction, which must be the
 * ambient one (store/db.ts withinTransaction). A credit for no quote, or for one that can no longer run
 * (expired, already funded), funds nothing: it is answered UNMATCHED, for an operator, never dropped.
 */
export async function fundQuoteByReference(
  runner: QuoteRunner,
  trx: Tx,
  reference: string,
  funds: ArrivedFunds,
): Promise<CreditMatch> {
  const quote = await quoteByReference.first(trx, { reference });
  if (!quote || quote.reference === null) return { result: 'UNMATCHED' };
  const found = { quoteId: quote.id, transactionId: quote.transaction_id };
  const scope = await loadScope(runner.ctx, quote.platform_id, quote.environment);
  try {
    // Its deferred rows written when it ends: a second credit for the same quote in one file reads them.
    const result = await withDeferredWrites(trx, () => fundQuote(runner, trx, scope, quote, funds));
    return { result, ...found };
  } catch (err) {
    const cannotRun =
      err instanceof AppError &&
      (err.code === 'QUOTE_EXPIRED' || (err.code === 'CONFLICT' && err.details?.reason === 'QUOTE_NOT_PENDING'));
    if (!cannotRun) throw err;
    return { result: 'UNMATCHED', ...found, why: err.message };
  }
}
