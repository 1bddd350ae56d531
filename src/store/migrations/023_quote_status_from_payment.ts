import type { Kysely } from 'kysely';

/**
 * A quote's status is its payment's: a quote owns its PENDING transaction from creation, and each of its
 * states (PENDING, PROCESSING, COMPLETED, FAILED, EXPIRED) is that transaction's. The copy kept on the quote
 * cost an UPDATE with every move of a quote's payment, and a status filter of GET /quotes had no index to read
 * it from (one on the copy cost quote flows 6–18 %, migration 022: on PostgreSQL it made every move of a quote
 * a non-HOT update). Quotes are now read with their payment's status, and a status filter reads the index
 * below: the quotes' payments only, ending in the quotes' page order (a payment is created with its quote, at
 * the same instant, and names it). Payments are no HOT updates already (their status is indexed since 017).
 * A quote is claimed for running by locking its payment (services/quotes/execution.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('quotes').dropColumn('status').execute();
  await db.schema
    .createIndex('transactions_quote_status_page')
    .on('transactions')
    .columns(['platform_id', 'environment', 'status', 'created_at', 'quote_id'])
    .where('quote_id', 'is not', null)
    .execute();
}
