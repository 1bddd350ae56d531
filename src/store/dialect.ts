import { PostgresAdapter } from 'kysely';
import type { Db, Tx } from './schema.ts';

export type Engine = 'sqlite' | 'postgres';

/**
 * True when `db` talks to PostgreSQL: code on the busiest paths writes several tables in one statement
 * there (data-modifying WITH), saving round trips that SQLite, in-process, does not pay.
 */
export function isPostgres(db: Db | Tx): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

export function engineOf(db: Db | Tx): Engine {
  return isPostgres(db) ? 'postgres' : 'sqlite';
}
