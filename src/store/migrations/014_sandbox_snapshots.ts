import type { Kysely } from 'kysely';

/**
 * A sandbox workspace's saved state: every row of one platform's sandbox, as one JSON document per
 * table (see services/sandbox-workspaces.ts). Restored in one transaction.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sandbox_snapshots')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('row_count', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sandbox_snapshots_scope')
    .on('sandbox_snapshots')
    .columns(['platform_id', 'environment', 'created_at'])
    .execute();
}
