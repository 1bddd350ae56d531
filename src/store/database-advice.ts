// What an operator should hear at start about the database server's own settings: the service cannot
// change them, and a wrong one costs throughput slowly rather than failing anything, so it would go unseen.
import { sql } from 'kysely';
import type { Store } from './db.ts';

/** One line per setting to change; none on SQLite or a well-set PostgreSQL. */
export async function databaseAdvice(store: Store): Promise<string[]> {
  if (store.engine !== 'postgres') return [];
  const { rows } = await sql<{ autovacuum: string }>`select current_setting('autovacuum') as autovacuum`.execute(
    store.db,
  );
  const advice: string[] = [];
  // Payments and jobs are updated in place: without vacuum their dead row versions pile up in the tables
  // and their indexes, and every statement that passes them pays for it.
  if (rows[0]?.autovacuum === 'off')
    advice.push(
      'autovacuum is off on this PostgreSQL server: the dead row versions of payments and jobs will pile up ' +
        'and slow the service down; set autovacuum = on (its default)',
    );
  return advice;
}
