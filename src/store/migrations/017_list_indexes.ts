import type { Kysely } from 'kysely';

/**
 * Filtered transaction pages that cost the same at a million rows as at a thousand (npm run bench:lab:growth).
 * A page is ordered by (created_at, id); an index that ends in those columns after the filter's own lets
 * both engines read the page's rows straight off it. Without one, SQLite walked the scope's whole history
 * to find one customer's twenty newest payments, and a status that few payments have (FAILED) made both
 * engines read every row of the platform. GET /customers leaves deleted customers out by default: with
 * is_deleted in an index of its own, its page and its count read no table row (customers_scope_page stays for
 * lists that include them).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('transactions_customer').execute();
  await db.schema
    .createIndex('transactions_customer_page')
    .on('transactions')
    .columns(['platform_id', 'environment', 'customer_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('transactions_status_page')
    .on('transactions')
    .columns(['platform_id', 'environment', 'status', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('customers_live_page')
    .on('customers')
    .columns(['platform_id', 'environment', 'is_deleted', 'created_at', 'id'])
    .execute();
}
