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
 * abort it, so the probe asks for something only PostgreSQL has and treats an error as SQLite, whose
 * migrations Kysely runs without a transaction.
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
 * SQLite cannot change a CHECK constraint in place: the table is rebuilt the way its documentation lays
 * out (new table, copy, drop, rename, indexes), with foreign keys off so webhook_attempts' references
 * to events survive the swap, then checked before the commit.
 */
async function rebuildSqliteEvents(db: Kysely<any>): Promise<void> {
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await sql`begin immediate`.execute(db);
    try {
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
      await sql`
        insert into events_rebuilt (id, platform_id, environment, type, object_id, data, created_at,
          delivery_state, delivery_run, delivery_updated_at)
        select id, platform_id, environment, type, object_id, data, created_at,
          delivery_state, delivery_run, delivery_updated_at
        from events`.execute(db);
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
      const broken = await sql`pragma foreign_key_check`.execute(db);
      if (broken.rows.length > 0) throw new Error(`rebuilding events broke ${broken.rows.length} foreign keys`);
      await sql`commit`.execute(db);
    } catch (err) {
      await sql`rollback`.execute(db);
      throw err;
    }
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}
