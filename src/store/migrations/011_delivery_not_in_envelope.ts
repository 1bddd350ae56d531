import { sql, type Kysely } from 'kysely';

const STATES = sql`delivery_state in ('PENDING', 'DELIVERED', 'FAILED', 'NO_ENDPOINT', 'NOT_IN_ENVELOPE')`;

/**
 * A fifth delivery state, NOT_IN_ENVELOPE: an event the platform's envelope has no notification for (the
 * LEGACY envelope leaves out refund events, whose refund rides on the FAILED notification). Only the
 * CHECK constraint of events.delivery_state changes; every existing row already satisfies the new one.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (await isPostgres(db)) {
    const checks = await sql<{ conname: string }>`
      select conname from pg_catalog.pg_constraint
      where conrelid = 'events'::regclass and contype = 'c'
        and pg_get_constraintdef(oid) like '%delivery_state%'`.execute(db);
    for (const { conname } of checks.rows) await sql`alter table events drop constraint ${sql.id(conname)}`.execute(db);
    await sql`alter table events add constraint events_delivery_state_check check (${STATES})`.execute(db);
    return;
  }
  await rebuildSqliteEvents(db);
}

/**
 * Migrations run inside a transaction on PostgreSQL (transactional DDL): a failed statement there would
 * abort it, so the probe asks for something only PostgreSQL has and treats an error as SQLite (where a
 * failed statement leaves the transaction open).
 */
async function isPostgres(db: Kysely<any>): Promise<boolean> {
  try {
    await sql`select 1 from pg_catalog.pg_namespace limit 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}

/**
 * SQLite cannot change a CHECK constraint in place: the table is rebuilt (new table, copy, drop, rename,
 * indexes). Migrations run in one transaction (so two processes never migrate at once), where foreign keys
 * cannot be switched off; so webhook_attempts, the one table referencing events, is set aside and rebuilt
 * after it, and every reference is checked before the transaction commits.
 */
async function rebuildSqliteEvents(db: Kysely<any>): Promise<void> {
  await sql`create table webhook_attempts_saved as select * from webhook_attempts`.execute(db);
  await db.schema.dropTable('webhook_attempts').execute();

  await db.schema
    .createTable('events_rebuilt')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('platform_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('delivery_state', 'text', (c) => c.notNull().defaultTo('PENDING').check(STATES))
    .addColumn('delivery_run', 'bigint', (c) => c.notNull().defaultTo(1))
    .addColumn('delivery_updated_at', 'bigint')
    .execute();
  await sql`insert into events_rebuilt select id, platform_id, environment, type, object_id, data, created_at,
    delivery_state, delivery_run, delivery_updated_at from events`.execute(db);
  await db.schema.dropTable('events').execute();
  await sql`alter table events_rebuilt rename to events`.execute(db);
  await db.schema
    .createIndex('events_scope_page')
    .on('events')
    .columns(['platform_id', 'environment', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('events_object').on('events').columns(['object_id', 'created_at', 'id']).execute();
  await db.schema
    .createIndex('events_object_state')
    .on('events')
    .columns(['platform_id', 'environment', 'object_id', 'delivery_state'])
    .execute();

  // As 005 made it.
  await db.schema
    .createTable('webhook_attempts')
    .addColumn('event_id', 'text', (c) => c.notNull().references('events.id'))
    .addColumn('run', 'bigint', (c) => c.notNull())
    .addColumn('attempt', 'bigint', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('status_code', 'bigint')
    .addColumn('latency_ms', 'bigint', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('response_body', 'text')
    .addPrimaryKeyConstraint('webhook_attempts_pk', ['event_id', 'run', 'attempt'])
    .execute();
  await sql`insert into webhook_attempts select event_id, run, attempt, url, started_at, status_code, latency_ms,
    error, response_body from webhook_attempts_saved`.execute(db);
  await db.schema.dropTable('webhook_attempts_saved').execute();
  const broken = await sql`pragma foreign_key_check`.execute(db);
  if (broken.rows.length > 0) throw new Error(`rebuilding events broke ${broken.rows.length} foreign keys`);
}
