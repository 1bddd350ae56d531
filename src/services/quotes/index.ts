// Quotes: the contract the routes use and the factory that binds it; creating a quote ties the parts
// together (resolve both ends, price once, write the quote and its transaction, queue its expiry).
import { invalidInput } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { enqueueJob, ownedJobId } from '../../jobs/queue.ts';
import { deferInsert } from '../../store/deferred-writes.ts';
import type { JobWorker } from '../../jobs/worker.ts';
import type { Page, PageRequest } from '../../domain/paging.ts';
import { scopeNowMs, type Ctx, type Scope, wallNowMs } from '../../context.ts';
import type { CustomerService } from '../customers.ts';
import type { ExternalAccountService } from '../external-accounts.ts';
import type { RateService } from '../rates.ts';
import { insertTransaction, newTransaction, type Transaction, type TransactionService } from '../transactions/index.ts';
import { railOutcome } from '../connectors/routing.ts';
import { executeQuote, expireIfDue, type QuoteRunner, registerQuoteExpiry, sandboxSend } from './execution.ts';
import { quoteRow, priceQuote, transactionDraft } from './pricing.ts';
import { listQuotes, loadQuote, type Quote, type QuoteFilters, type QuoteInput, toQuote } from './queries.ts';
import { checkLookup, type QuoteParties, readQuoteAccounts, resolveDestination, resolveSource } from './resolution.ts';

export { type Quote, type QuoteFilters, type QuoteInput, toQuote } from './queries.ts';

/** Quotes: the contract the routes use. The work is in resolution, pricing, execution and queries. */
export interface QuoteService {
  /**
   * Locks a rate and fees for a payment from a source to a destination, with its PENDING transaction.
   * Raises INVALID_INPUT, INVALID_CURRENCY, AMOUNT_OUT_OF_RANGE, QUOTE_REQUEST_FAILED, and the source's and
   * destination's own errors (CUSTOMER_NOT_FOUND, EXTERNAL_ACCOUNT_NOT_FOUND, …).
   */
  create(scope: Scope, input: QuoteInput): Promise<Quote>;
  /** Runs an account-funded quote. Raises QUOTE_NOT_FOUND, QUOTE_NOT_EXECUTABLE, QUOTE_NOT_PENDING, QUOTE_EXPIRED. */
  execute(scope: Scope, quoteId: string): Promise<Quote>;
  /** One quote. Raises QUOTE_NOT_FOUND. */
  get(scope: Scope, quoteId: string): Promise<Quote>;
  /** A page of quotes matching the filters. */
  list(scope: Scope, filters: QuoteFilters, page: PageRequest): Promise<Page<Quote>>;
  /** Sandbox: the payer's funds arrive for a REALTIME_FUNDING quote. Raises FORBIDDEN, REFERENCE_NOT_FOUND, … */
  sandboxSend(scope: Scope, input: Parameters<typeof sandboxSend>[2]): Promise<Transaction>;
  /**
   * Runs a quote's expiry step now instead of when its job comes round (the sandbox trigger, after moving the
   * clock): true when the quote expired, false when it is still early or no longer PENDING.
   */
  expireIfDue(scope: Scope, quoteId: string): Promise<boolean>;
}

interface QuoteDeps extends QuoteRunner, QuoteParties {
  rates: RateService;
}

export function makeQuoteService(
  ctx: Ctx,
  worker: JobWorker,
  transactions: TransactionService,
  externalAccounts: ExternalAccountService,
  customers: CustomerService,
  rates: RateService,
): QuoteService {
  const deps: QuoteDeps = { ctx, worker, transactions, externalAccounts, customers, rates };
  registerQuoteExpiry(deps);
  return {
    create: (scope, input) => createQuote(deps, scope, input),
    execute: (scope, quoteId) => executeQuote(deps, scope, quoteId),
    get: (scope, quoteId) => getQuote(deps, scope, quoteId),
    list: (scope, filters, page) => listQuotes(ctx.store.db, scope, filters, page),
    sandboxSend: (scope, input) => sandboxSend(deps, scope, input),
    expireIfDue: (scope, quoteId) => expireNow(deps, scope, quoteId),
  };
}

async function getQuote(deps: QuoteDeps, scope: Scope, quoteId: string): Promise<Quote> {
  return toQuote(await loadQuote(deps.ctx.store.db, scope, quoteId));
}

/** The expiry step, run now: true when the quote was PENDING and its time has come. */
async function expireNow(deps: QuoteDeps, scope: Scope, quoteId: string): Promise<boolean> {
  return deps.ctx.store.tx(async (trx) => {
    const pending = (await loadQuote(trx, scope, quoteId)).status === 'PENDING';
    return pending && (await expireIfDue(deps, trx, scope, quoteId)) === 0;
  });
}

async function createQuote(deps: QuoteDeps, scope: Scope, input: QuoteInput): Promise<Quote> {
  const { ctx } = deps;
  // Preconditions first: nothing is resolved or written for a request that cannot be honoured.
  if (input.immediatelyExecute && input.source.sourceType === 'REALTIME_FUNDING') {
    throw invalidInput(
      'immediatelyExecute',
      'immediatelyExecute needs an account source; a REALTIME_FUNDING quote runs when its funds arrive',
      'source',
    );
  }
  const quoteId = newId('Quote');
  const row = await ctx.store.tx(async (trx) => {
    const accounts = await readQuoteAccounts(trx, input);
    const source = await resolveSource(deps, trx, scope, input.source, accounts);
    const destination = await resolveDestination(deps, trx, scope, input.destination, accounts);
    if (input.lookupId !== undefined) await checkLookup(trx, scope, input.lookupId, destination);
    const nowMs = scopeNowMs(ctx, scope);
    const terms = { quoteId, source, destination, input, nowMs, ttlMs: ctx.config.quoteTtlMs };
    const priced = priceQuote(terms, deps.rates.pair(scope, source.currency, destination.currency));
    const payment = newTransaction(
      scope,
      nowMs,
      transactionDraft(
        priced,
        railOutcome(
          ctx,
          scope,
          {
            currency: destination.currency,
            externalAccount: destination.accountId?.startsWith('ExternalAccount:') ?? false,
          },
          destination.outcome,
        ),
      ),
    );
    await insertTransaction(trx, scope, payment);
    const quote = quoteRow(scope, priced, payment.id);
    await deferInsert(trx, 'quotes', quote);
    // Its own id, so that running the quote calls it off (execution.ts) instead of leaving it to run for nothing.
    const expiry = ownedJobId(quoteId);
    await enqueueJob(trx, scope, 'quote.expire', { quoteId }, wallNowMs(ctx), ctx.config.quoteTtlMs, expiry);
    return { ...quote, status: payment.status };
  });
  if (input.immediatelyExecute) return executeQuote(deps, scope, quoteId);
  // Answered from the row it wrote, not read back.
  return toQuote(row);
}
