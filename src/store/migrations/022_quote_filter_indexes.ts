import type { Kysely } from 'kysely';
import { isPostgres } from '../dialect.ts';

/**
 * Filters of GET /quotes get an index that ends in the page's order (created_at, id), as the filters of
 * GET /transactions did in 017 and 021: without one, a customer or an account with a few quotes read every
 * quote of the platform to fill a page and to count it. Measured with `npm run bench:lab:lifetimes` (quote +
 * execute), alternating with and without, two runs each (docs/performance.md):
 * - The customer, on both engines, and the two accounts on PostgreSQL: quote flows ran as fast with them as
 *   without. On SQLite the accounts' indexes would cost what 021 says the payments' did.
 * - Not the status, on either engine. A quote's status moves with its payment's, three times, and an index
 *   of it cost SQLite's quote flows 6 % and PostgreSQL's 18 % (there every indexed column that changes makes
 *   the update write a new entry in every index of the table). A status filter still walks the platform's
 *   quotes newest first.
 */
const BOTH = { quotes_customer_page: 'customer_id' };
const POSTGRES_ONLY = { quotes_sending_page: 'sending_account_id', quotes_receiving_page: 'receiving_account_id' };

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, column] of Object.entries({ ...BOTH, ...(isPostgres(db) ? POSTGRES_ONLY : {}) }))
    await db.schema
      .createIndex(name)
      .on('quotes')
      .columns(['platform_id', 'environment', column, 'created_at', 'id'])
      .execute();
}
