// Running a quote: claiming it (at most once), funding and processing its transaction, expiry, and the
// sandbox's arrival of funds for a REALTIME_FUNDING quote.
import { present } from '../../domain/assert.ts';
import { AppError, conflict, invalidInput } from '../../domain/errors.ts';
import { iso } from '../../domain/clock.ts';
import { runAgainAt } from '../../jobs/kinds.ts';
import { callOffJob, ownedJobId } from '../../jobs/queue.ts';
import type { JobWorker } from '../../jobs/worker.ts';
import type { Tx } from '../../store/db.ts';
import type { QuotesTable, TransactionsTable } from '../../store/schema.ts';
import { scopeNowMs, type Ctx, type Scope, wallNowMs } from '../../context.ts';
import { moveTransaction, type Transaction, type TransactionService } from '../transactions/index.ts';
import { loadQuote, type Quote, scopedQuotes, toQuote } from './queries.ts';
import { statement } from '../../store/compiled.ts';

/** What running a quote needs. */
export interface QuoteRunner {
  ctx: Ctx;
  worker: JobWorker;
  transactions: TransactionService;
}

/**
 * Why a quote could not be claimed, read from its row: not found, funded in real time, no longer PENDING, or
 * expired on its platform's clock. Undefined when it can run.
 */
function refusal(ctx: Ctx, scope: Scope, quote: QuotesTable): AppError | undefined {
  if (quote.reference !== null)
    return new AppError(
      'INVALID_INPUT',
      'A REALTIME_FUNDING quote runs when its funds arrive (see paymentInstructions); it cannot be executed',
      { field: 'quoteId', rule: 'executable', reason: 'QUOTE_NOT_EXECUTABLE' },
    );
  return notRunnable(ctx, scope, quote);
}

/** A quote that is no longer PENDING, or has expired on its platform's clock, cannot run. */
function notRunnable(ctx: Ctx, scope: Scope, quote: QuotesTable): AppError | undefined {
  if (quote.status !== 'PENDING')
    return conflict('QUOTE_NOT_PENDING', `Quote ${quote.id} is ${quote.status}; only a PENDING quote can run`, {
      status: quote.status,
    });
  if (scopeNowMs(ctx, scope) >= Number(quote.expires_at))
    return new AppError('QUOTE_EXPIRED', `Quote ${quote.id} expired at ${iso(quote.expires_at)}; create a new quote`);
  return undefined;
}

/**
 * PENDING → PROCESSING for an unexpired quote of the scope funded from an account, answering its row. The
 * conditional update is what makes a quote run at most once: of any number of concurrent calls exactly one
 * matches the row (PostgreSQL checks the condition again once the winner's lock is released).
 */
const claimStatement = statement(
  (db, v: { id: string; platformId: string; environment: Scope['environment']; now: bigint }) =>
    db
      .updateTable('quotes')
      .set({ status: 'PROCESSING', updated_at: v.now })
      .where('id', '=', v.id)
      .where('platform_id', '=', v.platformId)
      .where('environment', '=', v.environment)
      .where('status', '=', 'PENDING')
      .where('reference', 'is', null)
      .where('expires_at', '>', v.now)
      .returningAll(),
);

/**
 * Claims an account-funded quote for running, in one statement; when it cannot be claimed, reads it to say
 * why (QUOTE_NOT_FOUND, QUOTE_NOT_EXECUTABLE, QUOTE_NOT_PENDING, QUOTE_EXPIRED).
 */
async function claimFunded(ctx: Ctx, trx: Tx, scope: Scope, quoteId: string): Promise<QuotesTable> {
  const now = BigInt(scopeNowMs(ctx, scope));
  const values = { id: quoteId, platformId: scope.platformId, environment: scope.environment, now };
  const claimed = await claimStatement.first(trx, values);
  if (claimed) {
    await callOffJob(trx, ownedJobId(quoteId), wallNowMs(ctx));
    return claimed;
  }
  const quote = await loadQuote(ctx, trx, scope, quoteId);
  throw refusal(ctx, scope, quote) ?? conflict('QUOTE_NOT_PENDING', `Quote ${quoteId} is already being executed`);
}

/**
 * Claims a PENDING, unexpired quote read by the caller (a REALTIME_FUNDING quote whose funds arrive). The
 * conditional update is what makes a quote run at most once: of any number of concurrent calls exactly one
 * matches the row, the others see a 409.
 */
async function claimRealtime(ctx: Ctx, trx: Tx, scope: Scope, quote: QuotesTable): Promise<void> {
  const failure = notRunnable(ctx, scope, quote);
  if (failure) throw failure;
  const claimed = await trx
    .updateTable('quotes')
    .set({ status: 'PROCESSING', updated_at: BigInt(scopeNowMs(ctx, scope)) })
    .where('id', '=', quote.id)
    .where('status', '=', 'PENDING')
    .executeTakeFirst();
  if (claimed.numUpdatedRows !== 1n) throw conflict('QUOTE_NOT_PENDING', `Quote ${quote.id} is already being executed`);
  await callOffJob(trx, ownedJobId(quote.id), wallNowMs(ctx));
}

/**
 * Funds the quote's transaction and runs it: debit (or receipt), PROCESSING, and the rail's outcome. Answers
 * the payment as it left it (undefined when it did not move).
 */
async function run(
  { transactions }: QuoteRunner,
  trx: Tx,
  scope: Scope,
  quote: QuotesTable,
  funding: 'INTERNAL' | 'EXTERNAL',
): Promise<TransactionsTable | undefined> {
  const row = present(
    await transactions.loadForUpdate(trx, scope, quote.transaction_id),
    'a quote owns its transaction from creation',
  );
  const funded = await transactions.fund(trx, scope, row, funding);
  return transactions.process(trx, scope, funded);
}

/**
 * Runs a quote funded from an account, and answers it as its run left it (the quote follows its transaction's
 * status), from the rows the run wrote rather than read back.
 */
export async function executeQuote(runner: QuoteRunner, scope: Scope, quoteId: string): Promise<Quote> {
  const { ctx, worker } = runner;
  const ran = await ctx.store.tx(async (trx) => {
    const quote = await claimFunded(ctx, trx, scope, quoteId);
    const source = JSON.parse(quote.source) as { accountId?: string };
    const funding = source.accountId?.startsWith('ExternalAccount:') ? 'EXTERNAL' : 'INTERNAL';
    const moved = await run(runner, trx, scope, quote, funding);
    // The quote mirrors each move of its transaction (moveTransaction).
    return moved ? { ...quote, status: moved.status } : quote;
  });
  worker.kick();
  return toQuote(ran);
}

/**
 * The expiry step of a quote: a PENDING quote whose time has come on its platform's clock expires with its
 * transaction. Answers how many milliseconds it is still early (0 when it expired or has nothing to expire).
 */
export async function expireIfDue(
  { ctx, transactions }: QuoteRunner,
  trx: Tx,
  scope: Scope,
  quoteId: string,
): Promise<number> {
  const quote = await scopedQuotes(trx, scope).selectAll().where('id', '=', quoteId).executeTakeFirst();
  if (!quote || quote.status !== 'PENDING') return 0;
  const earlyByMs = Number(quote.expires_at) - scopeNowMs(ctx, scope);
  if (earlyByMs > 0) return earlyByMs;
  const row = await transactions.loadForUpdate(trx, scope, quote.transaction_id);
  if (row?.status === 'PENDING') await moveTransaction(ctx, trx, scope, row, { to: 'EXPIRED' });
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
    if (input.quoteId !== undefined) quote = await loadQuote(ctx, trx, scope, input.quoteId, true);
    else {
      const found = await scopedQuotes(trx, scope)
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
    await claimRealtime(ctx, trx, scope, quote);
    const currencyCode = input.currencyCode ?? quote.sending_currency;
    const amount = input.currencyAmount === undefined ? quote.total_sending_amount : BigInt(input.currencyAmount);
    if (currencyCode === quote.sending_currency && amount === quote.total_sending_amount) {
      await run(runner, trx, scope, quote, 'EXTERNAL');
    } else {
      // Funds that do not match are not accepted into the payment (nothing is posted): it fails at once.
      const row = present(
        await transactions.loadForUpdate(trx, scope, quote.transaction_id),
        'a quote owns its transaction from creation',
      );
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
}
