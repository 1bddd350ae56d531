import type { Kysely } from 'kysely';

/**
 * What the dashboard shows and the tables did not keep:
 * - each webhook attempt's request as it was sent (headers and body). The body cannot be rebuilt later:
 *   the envelope it is built in is the one configured at the attempt and its timestamp is the attempt's
 *   scope time, and the headers carry a real-time `webhook-timestamp` and signatures (ECDSA is randomized),
 *   none of which is stored. Older attempts keep null: nothing was recorded for them.
 * - the last ledger check of each platform environment (ledger/checks.ts), and an index that lets that
 *   check read one scope's journal entries without reading every tenant's.
 * ADD COLUMN, CREATE TABLE and CREATE INDEX: the same statements on SQLite and PostgreSQL.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_attempts').addColumn('request_headers', 'text').execute();
  await db.schema.alterTable('webhook_attempts').addColumn('request_body', 'text').execute();

  await db.schema
    .createTable('ledger_checks')
    .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    // Wall-clock ms: a check belongs to real time, not to a sandbox clock.
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('checked_at', 'bigint')
    .addColumn('duration_ms', 'bigint')
    .addColumn('entries', 'bigint')
    // JSON array of {invariant, detail}; null until the first check finished.
    .addColumn('violations', 'text')
    .addPrimaryKeyConstraint('ledger_checks_pk', ['platform_id', 'environment'])
    .execute();
  await db.schema
    .createIndex('journal_entries_scope')
    .on('journal_entries')
    .columns(['platform_id', 'environment'])
    .execute();
}
