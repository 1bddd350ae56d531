import type { Kysely } from 'kysely';
import { isPostgres } from '../dialect.ts';

/**
 * Filters of GET /transactions that pick a few payments out of many get an index that ends in the page's
 * order (created_at, id), as customerId and status have since migration 017.
 * - The reconciliation reference, on both engines: its index of 004 did not end in the order, so SQLite
 *   walked the platform's history in order instead, and a reference that matched nothing read it all. Its
 *   payments without a reference (most) all land at one end of the index, so it costs no more to write.
 * - On PostgreSQL only: the platform's own customer id, the account a payment leaves and the one it reaches
 *   (accountIdentifier is either: one range of each). Without them a customer or an account with a handful
 *   of payments read every payment of the platform to fill a page and to count it. On SQLite each costs the
 *   money path dearly: a payment lands at its payer's place in each, so a group commit writes another page
 *   per payer and index to the WAL. Measured with `npm run bench`, alternating with and without: SQLite
 *   accepted 15 % fewer transfer-outs and its raw-SQL ceiling fell 22 %; PostgreSQL moved within its noise
 *   (−3 %, +2 %). The embedded database is the sandbox's, whose histories stay short; production runs on
 *   PostgreSQL (measured; docs/performance.md).
 */
const POSTGRES_FILTERS = {
  transactions_platform_customer_page: 'platform_customer_id',
  transactions_source_page: 'source_account_id',
  transactions_destination_page: 'destination_account_id',
};

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('transactions_reference').execute();
  const filters = { transactions_reference_page: 'reference', ...(isPostgres(db) ? POSTGRES_FILTERS : {}) };
  for (const [name, column] of Object.entries(filters))
    await db.schema
      .createIndex(name)
      .on('transactions')
      .columns(['platform_id', 'environment', column, 'created_at', 'id'])
      .execute();
}
