// Every process migrates its database when it starts (servers, CLI commands), so migrations must be safe
// when several start at once, and behind a transaction-mode pooler (PgBouncer), where consecutive statements
// outside a transaction may run on different server connections. Kysely's Migrator locks with a
// session-level advisory lock and unlocks with a second statement: behind such a pooler the unlock can land on
// another server connection, and the lock then stays on a pooled connection, where every later start waits
// for it. Here the whole migration is one database transaction whose first statement takes a
// transaction-scoped lock (PostgreSQL) or whose BEGIN IMMEDIATE takes the write lock (SQLite): it ends with
// the transaction, whatever connection that ran on. The bookkeeping table is Kysely's own, so a database
// migrated by either reads the same.
import { sql } from 'kysely';
import { systemClock } from '../domain/clock.ts';
import { migrations } from './migrations/index.ts';
import { isPostgres } from './dialect.ts';
import { withSubJournalOnDisk } from './db.ts';
import type { Db } from './schema.ts';
import { OperatorError } from '../domain/errors.ts';

/** The table Kysely's Migrator keeps its applied migrations in, with its columns. */
const TABLE = 'kysely_migration';
/** The key of the advisory lock that makes PostgreSQL migrations take turns (any fixed number). */
const LOCK_KEY = 7_303_501_187;

/** Error of a database that holds a migration this code does not know: a newer release migrated it. */
export class UnknownMigrationError extends OperatorError {}

/** Applies the migrations the database lacks, in name order, in one transaction; answers their names. */
export async function migrate(store: { db: Db }): Promise<string[]> {
  // A migration may rewrite whole tables: on SQLite its journals go to a temporary file, not into memory.
  if (isPostgres(store.db)) return applyPending(store.db);
  return withSubJournalOnDisk(store.db, () => applyPending(store.db));
}

function applyPending(db: Db): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    if (isPostgres(trx)) await sql`select pg_advisory_xact_lock(${sql.lit(LOCK_KEY)})`.execute(trx);
    await trx.schema
      .createTable(TABLE)
      .ifNotExists()
      .addColumn('name', 'varchar(255)', (c) => c.notNull().primaryKey())
      .addColumn('timestamp', 'varchar(255)', (c) => c.notNull())
      .execute();
    const { rows } = await sql<{ name: string }>`select name from ${sql.table(TABLE)}`.execute(trx);
    const applied = new Set(rows.map((row) => row.name));
    const unknown = [...applied].filter((name) => !(name in migrations));
    if (unknown.length > 0)
      throw new UnknownMigrationError(
        `the database holds migrations this version does not know (${unknown.join(', ')}): ` +
          'it was migrated by a newer release of payouts',
      );
    const pending = Object.keys(migrations)
      .sort()
      .filter((name) => !applied.has(name));
    for (const name of pending) {
      await migrations[name]!.up(trx);
      const at = new Date(systemClock.nowMs()).toISOString();
      await sql`insert into ${sql.table(TABLE)} (name, timestamp) values (${name}, ${at})`.execute(trx);
    }
    return pending;
  });
}
