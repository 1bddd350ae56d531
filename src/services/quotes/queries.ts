// Reading quotes: the API shape of a row, the scope every query starts from, one quote, a page of them.
import type { Static } from '@sinclair/typebox';
import type { Quote as QuoteSchema, QuoteCreate } from '../../wire/quotes.ts';
import { notFound } from '../../domain/errors.ts';
import { iso } from '../../domain/clock.ts';
import { currency } from '../../domain/currencies.ts';
import type { SelectQueryBuilder } from 'kysely';
import type { Db, Tx } from '../../store/db.ts';
import type { QuotesTable } from '../../store/schema.ts';
import { keysetPage, mapPage, type PageOptions } from '../../store/paging.ts';
import type { Page, PageRequest } from '../../domain/paging.ts';
import type { Scope } from '../../context.ts';
import type { TransactionStatus } from '../../domain/transactions.ts';

export type Quote = Static<typeof QuoteSchema>;
export type QuoteInput = Static<typeof QuoteCreate>;

/** A quote as read: its row and its payment's status, which is the quote's. */
export type QuoteRow = QuotesTable & { status: TransactionStatus };

export function toQuote(row: QuoteRow): Quote {
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

/** The caller's quotes, their own rows (no status). */
export function scopedQuoteRows(db: Db | Tx, scope: Scope) {
  return db
    .selectFrom('quotes')
    .where('quotes.platform_id', '=', scope.platformId)
    .where('quotes.environment', '=', scope.environment);
}

/** The caller's quotes, each with its status: its payment's, reached by the primary key the quote names. */
function scopedQuotes(db: Db | Tx, scope: Scope) {
  return scopedQuoteRows(db, scope)
    .innerJoin('transactions', 'transactions.id', 'quotes.transaction_id')
    .selectAll('quotes')
    .select('transactions.status');
}

/** One quote of the caller's scope, with its status. Raises QUOTE_NOT_FOUND. */
export async function loadQuote(trx: Db | Tx, scope: Scope, quoteId: string): Promise<QuoteRow> {
  const row = await scopedQuotes(trx, scope).where('quotes.id', '=', quoteId).executeTakeFirst();
  if (!row) throw notFound('Quote', quoteId, 'QUOTE_NOT_FOUND');
  return row;
}

export interface QuoteFilters {
  customerId?: string | undefined;
  sendingAccountId?: string | undefined;
  receivingAccountId?: string | undefined;
  sendingUmaAddress?: string | undefined;
  receivingUmaAddress?: string | undefined;
  status?: TransactionStatus | undefined;
  createdAfter?: number | undefined;
  createdBefore?: number | undefined;
}

/**
 * A page of the caller's quotes. Filtered by status, the page is read off the quotes' payments' status index
 * (migration 023), whose order is the quotes' own: a payment is created with its quote, at the same instant,
 * and names it. Otherwise the quotes' indexes give the page, and each of its rows then reads its payment.
 */
export async function listQuotes(db: Db, scope: Scope, f: QuoteFilters, page: PageRequest): Promise<Page<Quote>> {
  const quotes = scopedQuoteRows(db, scope);
  let q =
    f.status === undefined
      ? quotes
      : inStatus(quotes.innerJoin('transactions', 'transactions.quote_id', 'quotes.id'), scope, f.status);
  if (f.customerId !== undefined) q = q.where('quotes.customer_id', '=', f.customerId);
  if (f.sendingAccountId !== undefined) q = q.where('quotes.sending_account_id', '=', f.sendingAccountId);
  if (f.receivingAccountId !== undefined) q = q.where('quotes.receiving_account_id', '=', f.receivingAccountId);
  if (f.sendingUmaAddress !== undefined) q = q.where('quotes.sending_uma_address', '=', f.sendingUmaAddress);
  if (f.receivingUmaAddress !== undefined) q = q.where('quotes.receiving_uma_address', '=', f.receivingUmaAddress);
  if (f.createdAfter !== undefined) q = q.where('quotes.created_at', '>=', BigInt(f.createdAfter));
  if (f.createdBefore !== undefined) q = q.where('quotes.created_at', '<=', BigInt(f.createdBefore));
  // Counted without their payments (each quote has one); the page's rows then read theirs.
  const options: PageOptions =
    f.status === undefined
      ? {
          rows: (rows) =>
            rows.innerJoin('transactions', 'transactions.id', 'quotes.transaction_id').select('transactions.status'),
        }
      : {
          key: { createdAt: 'transactions.created_at', id: 'transactions.quote_id' },
          rows: (rows) => rows.select('transactions.status'),
          // With no filter of the quotes' own, the status index alone answers the count. Joined to up to 1,001
          // quotes, PostgreSQL started parallel workers for it (5 ms) whenever most payments had the status.
          ...(hasQuoteFilter(f) ? {} : { counted: inStatus(db.selectFrom('transactions'), scope, f.status) }),
        };
  return mapPage(await keysetPage<QuoteRow>(q, 'quotes', page, options), toQuote);
}

/** The filters on a quote's own columns: every one but the status, which is its payment's. A Record, so that a
 *  filter added to QuoteFilters cannot be left out (the count would then ignore it). */
const QUOTE_COLUMN_FILTERS: Record<Exclude<keyof QuoteFilters, 'status'>, true> = {
  customerId: true,
  sendingAccountId: true,
  receivingAccountId: true,
  sendingUmaAddress: true,
  receivingUmaAddress: true,
  createdAfter: true,
  createdBefore: true,
};

const hasQuoteFilter = (f: QuoteFilters) =>
  (Object.keys(QUOTE_COLUMN_FILTERS) as (keyof QuoteFilters)[]).some((name) => f[name] !== undefined);

/**
 * `query` (over the quotes' payments, joined to their quotes or not) cut to the payments in `status`: a range of
 * the quotes' payments' status index (migration 023).
 */
function inStatus<Q extends SelectQueryBuilder<any, any, any>>(query: Q, scope: Scope, status: TransactionStatus): Q {
  return (
    query
      .where('transactions.platform_id', '=', scope.platformId)
      .where('transactions.environment', '=', scope.environment)
      .where('transactions.status', '=', status)
      // The partial index's own condition: what makes these the quotes' payments when no quote is joined, and
      // SQLite takes a partial index only for a query that names it.
      .where('transactions.quote_id', 'is not', null) as Q
  );
}
