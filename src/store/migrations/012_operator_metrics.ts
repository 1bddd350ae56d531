import { type Kysely, sql } from 'kysely';

/**
 * Indexes that keep /metrics cheap at scrape time. Both are partial: they hold only the rows a metric
 * reads (payments not yet settled, webhook attempts that failed), so they stay small however much history
 * the tables keep, and a scrape reads the index alone. Same SQL on SQLite and PostgreSQL.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index transactions_unsettled on transactions
    (type, environment, sent_currency, created_at, sent_amount)
    where status in ('PENDING', 'PROCESSING')`.execute(db);
  await sql`create index webhook_attempts_failed on webhook_attempts (url)
    where status_code is null or status_code < 200 or status_code > 299`.execute(db);
}
