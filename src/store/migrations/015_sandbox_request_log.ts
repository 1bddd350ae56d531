import type { Kysely } from 'kysely';

/**
 * A sandbox workspace's request log and its fault rules (see services/sandbox-requests.ts and
 * services/sandbox-faults.ts). Both live in the database so that every server process on one PostgreSQL
 * writes the same log and applies the same rules.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sandbox_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    // Null when a fault rule dropped the connection: no status was ever sent.
    .addColumn('status', 'bigint')
    .addColumn('latency_ms', 'bigint', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text')
    .addColumn('error_code', 'text')
    .addColumn('fault_id', 'text')
    .addColumn('request_body', 'text')
    .addColumn('response_body', 'text')
    .execute();
  // Every read and the trim to the newest N go through the workspace and (created_at, id): one range scan.
  await db.schema
    .createIndex('sandbox_requests_scope')
    .on('sandbox_requests')
    .columns(['platform_id', 'environment', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('sandbox_faults')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('route', 'text', (c) => c.notNull())
    .addColumn('method', 'text')
    // Parts per million: an exact integer on both engines (every integer column is a bigint).
    .addColumn('probability_ppm', 'bigint', (c) => c.notNull())
    .addColumn('latency_ms', 'bigint', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('answer_status', 'bigint')
    .addColumn('answer_code', 'text')
    // Null: fires without limit. Counted down by one conditional update per firing, shared by every process.
    .addColumn('remaining', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sandbox_faults_scope')
    .on('sandbox_faults')
    .columns(['platform_id', 'environment', 'created_at'])
    .execute();
}
