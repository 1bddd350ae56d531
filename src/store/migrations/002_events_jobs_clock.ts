import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Every state change writes its event here in the same transaction; webhook delivery reads from it.
  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('platform_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('events_scope_page')
    .on('events')
    .columns(['platform_id', 'environment', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('events_object').on('events').columns(['object_id', 'created_at', 'id']).execute();

  // Durable jobs: delayed sandbox outcomes, expiries, deliveries. run_at is real (wall-clock) time.
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('platform_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('run_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_until', 'bigint')
    .addColumn('attempts', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_due').on('jobs').columns(['status', 'run_at']).execute();
  await db.schema.createIndex('jobs_scope').on('jobs').columns(['platform_id', 'environment', 'status']).execute();

  // The sandbox clock of a platform: how far it has been moved ahead of real time.
  await db.schema
    .alterTable('platform_configs')
    .addColumn('clock_offset_ms', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}
