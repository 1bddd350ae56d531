// Reading quotes: the API shape of a row, the scope every query starts from, one quote, a page of them.
import type { Static } from '@sinclair/typebox';
import type { Quote as QuoteSchema, QuoteCreate } from '../../http/schemas/quotes.ts';
import { notFound } from '../../domain/errors.ts';
import { iso } from '../../domain/clock.ts';
import { currency } from '../../domain/currencies.ts';
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
  let q = f.status === undefined ? quotes : withStatus(quotes, scope, f.status);
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
        };
  return mapPage(await keysetPage<QuoteRow>(q, 'quotes', page, options), toQuote);
}

/** Quotes whose payment is in `status`, read off the quotes' payments' status index (migration 023). */
function withStatus(quotes: ReturnType<typeof scopedQuoteRows>, scope: Scope, status: TransactionStatus) {
  return (
    quotes
      .innerJoin('transactions', 'transactions.quote_id', 'quotes.id')
      .where('transactions.platform_id', '=', scope.platformId)
      .where('transactions.environment', '=', scope.environment)
      .where('transactions.status', '=', status)
      // Implied by the join, but SQLite takes a partial index only for a query that names its condition.
      .where('transactions.quote_id', 'is not', null)
  );
}
