// Rows that nothing reads back inside the transaction that writes them (events and the jobs that deliver
// or follow up on a change) are held until the transaction's work is done and then written together: one
// statement on PostgreSQL (data-modifying WITH), one multi-row INSERT per table on SQLite. They still
// commit with the change they belong to, or not at all. Every store.tx opens a buffer (see db.ts); a
// caller outside one writes at once.
import type { QueryCreator } from 'kysely';
import type { Database, Tx } from './schema.ts';

import { isPostgres } from './dialect.ts';

export type DeferredTable = 'events' | 'jobs';
type Row = Database[DeferredTable];
interface Pending {
  table: DeferredTable;
  row: Row;
}

const buffers = new WeakMap<Tx, Pending[]>();

/** Rows per INSERT on SQLite, well under its limit of bound parameters per statement. */
const SQLITE_ROWS_PER_INSERT = 200;

/** Queues `row` for `table` in the caller's transaction; writes it at once when the caller opened none. */
export async function deferInsert<T extends DeferredTable>(trx: Tx, table: T, row: Database[T]): Promise<void> {
  const buffer = buffers.get(trx);
  if (buffer) buffer.push({ table, row });
  else await write(trx, [{ table, row }]);
}

/**
 * Runs `fn` with a buffer on `trx` and writes what it queued once it has returned. A nested call on the
 * same transaction (a savepoint) shares the outer buffer; when it fails, only what it queued is dropped.
 */
export async function withDeferredInserts<T>(trx: Tx, fn: (trx: Tx) => Promise<T>): Promise<T> {
  let buffer = buffers.get(trx);
  if (!buffer) buffers.set(trx, (buffer = []));
  const mark = buffer.length;
  try {
    const value = await fn(trx);
    await write(trx, buffer.splice(0));
    return value;
  } catch (err) {
    buffer.splice(mark);
    throw err;
  }
}

async function write(trx: Tx, pending: Pending[]): Promise<void> {
  if (pending.length === 0) return;
  // Rows of one table in the order they were queued: job ids and event ids are time-ordered already.
  const byTable = new Map<DeferredTable, Row[]>();
  for (const { table, row } of pending) {
    const rows = byTable.get(table);
    if (rows) rows.push(row);
    else byTable.set(table, [row]);
  }
  const groups = [...byTable];
  if (isPostgres(trx)) {
    // The rows are in place when the statement ends, which is when foreign keys are checked.
    let creator: QueryCreator<Database> = trx;
    for (const [i, [table, rows]] of groups.slice(0, -1).entries())
      creator = creator.with(`deferred_${i}`, (db) => db.insertInto(table).values(rows as never)) as never;
    const [table, rows] = groups[groups.length - 1]!;
    await creator
      .insertInto(table)
      .values(rows as never)
      .execute();
    return;
  }
  for (const [table, rows] of groups)
    for (let at = 0; at < rows.length; at += SQLITE_ROWS_PER_INSERT)
      await trx
        .insertInto(table)
        .values(rows.slice(at, at + SQLITE_ROWS_PER_INSERT) as never)
        .execute();
}
