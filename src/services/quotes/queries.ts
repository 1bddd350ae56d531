// Reading quotes: the API shape of a row, the scope every query starts from, one quote, a page of them.
import type { Static } from '@sinclair/typebox';
import type { Quote as QuoteSchema, QuoteCreate } from '../../http/schemas/quotes.ts';
import { notFound } from '../../domain/errors.ts';
import { iso } from '../../domain/clock.ts';
import { currency } from '../../domain/currencies.ts';
import type { Db, Tx } from '../../store/db.ts';
import type { QuotesTable } from '../../store/schema.ts';
import { keysetPage, mapPage } from '../../store/paging.ts';
import type { Page, PageRequest } from '../../domain/paging.ts';
import { inScope, type Ctx, type Scope } from '../../context.ts';

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

/** One quote of the caller's scope, locked for the caller's transaction when asked. Raises QUOTE_NOT_FOUND. */
export async function loadQuote(
  ctx: Ctx,
  trx: Db | Tx,
  scope: Scope,
  quoteId: string,
  lock = false,
): Promise<QuotesTable> {
  let q = trx.selectFrom('quotes').selectAll().where('id', '=', quoteId);
  if (lock && ctx.store.engine === 'postgres') q = q.forUpdate();
  const row = await q.executeTakeFirst();
  if (!row || !inScope(row, scope)) throw notFound('Quote', quoteId, 'QUOTE_NOT_FOUND');
  return row;
}

export interface QuoteFilters {
  customerId?: string | undefined;
  sendingAccountId?: string | undefined;
  receivingAccountId?: string | undefined;
  sendingUmaAddress?: string | undefined;
  receivingUmaAddress?: string | undefined;
  status?: string | undefined;
  createdAfter?: number | undefined;
  createdBefore?: number | undefined;
}

/** A page of the caller's quotes. */
export async function listQuotes(db: Db, scope: Scope, f: QuoteFilters, page: PageRequest): Promise<Page<Quote>> {
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
}
