// Rows that nothing reads back inside the transaction that writes them (a new payment, its events, the jobs
// that deliver or follow up on a change and, on PostgreSQL, ledger entries and the balances they move) are
// held until the transaction's work is done and then written together: one statement on PostgreSQL
// (data-modifying WITH), one multi-row INSERT per table on SQLite. They still commit with the change they
// belong to, or not at all. Every store.tx opens a buffer (see db.ts); a caller outside one writes at once.
// On PostgreSQL that statement is the transaction's last: when the transaction wrote nothing before it, it
// runs without BEGIN and COMMIT (store/pg-lazy-begin.ts).
import { type QueryCreator, sql } from 'kysely';
import { insufficientBalance } from '../domain/errors.ts';
import type { Database, Tx } from './schema.ts';
import { isPostgres } from './dialect.ts';
import { asLastStatement } from './pg-lazy-begin.ts';

export type DeferredTable = 'transactions' | 'quotes' | 'events' | 'jobs' | 'journal_entries' | 'postings';
type Row = Database[DeferredTable];

/** A change of a stored balance (ledger_accounts); the balance may not go below zero (a CHECK says so). */
export interface BalanceMove {
  accountId: string;
  currency: string;
  amount: bigint;
  atMs: bigint;
}

type Pending = { table: DeferredTable; row: Row } | { move: BalanceMove };

const buffers = new WeakMap<Tx, Pending[]>();

/** Rows per INSERT on SQLite, well under its limit of bound parameters per statement. */
const SQLITE_ROWS_PER_INSERT = 200;

/** Queues `row` for `table` in the caller's transaction; writes it at once when the caller opened none. */
export function deferInsert<T extends DeferredTable>(trx: Tx, table: T, row: Database[T]): Promise<void> {
  return queue(trx, [{ table, row }]);
}

/** Into the caller's buffer, or written at once when the caller opened none. */
async function queue(trx: Tx, pending: Pending[]): Promise<void> {
  const buffer = buffers.get(trx);
  if (buffer) buffer.push(...pending);
  else await write(trx, pending);
}

/**
 * PostgreSQL only: queues a journal entry (its header, its postings) and the balance moves it makes. Each
 * posting on an account whose balance moves takes its account id from that move's UPDATE … RETURNING, so a
 * move that matched no row leaves a posting without an account and fails the statement: never a posting
 * without its balance move. A debit past zero fails it on the CHECK, answered as INSUFFICIENT_BALANCE.
 */
export function deferLedgerEntry(
  trx: Tx,
  header: Database['journal_entries'],
  lines: Database['postings'][],
  moves: BalanceMove[],
): Promise<void> {
  return queue(trx, [
    { table: 'journal_entries', row: header },
    ...lines.map((row) => ({ table: 'postings' as const, row })),
    ...moves.map((move) => ({ move })),
  ]);
}

/**
 * Runs `fn` with a buffer on `trx` and writes what it queued once it has returned. A nested call on the
 * same transaction (a savepoint) shares the outer buffer; when it fails, only what it queued is dropped.
 */
export async function withDeferredWrites<T>(trx: Tx, fn: (trx: Tx) => Promise<T>): Promise<T> {
  let buffer = buffers.get(trx);
  const outermost = !buffer;
  if (!buffer) buffers.set(trx, (buffer = []));
  const mark = buffer.length;
  try {
    const value = await fn(trx);
    const pending = buffer.splice(0);
    // The outermost call's write is the transaction's last statement: its commit follows.
    if (outermost) await asLastStatement(() => write(trx, pending));
    else await write(trx, pending);
    return value;
  } catch (err) {
    buffer.splice(mark);
    throw err;
  }
}

/** Rows by table, in the order each table was first queued, and the moves merged by account. */
function gather(pending: Pending[]): { groups: [DeferredTable, Row[]][]; moves: BalanceMove[] } {
  const byTable = new Map<DeferredTable, Row[]>();
  const moves = new Map<string, BalanceMove>();
  for (const item of pending) {
    if ('move' in item) {
      const key = `${item.move.accountId} ${item.move.currency}`;
      const seen = moves.get(key);
      // One UPDATE per row and statement: PostgreSQL would apply only one of two updates of the same row.
      moves.set(key, seen ? mergeMoves(seen, item.move) : item.move);
      continue;
    }
    const rows = byTable.get(item.table);
    if (rows) rows.push(item.row);
    else byTable.set(item.table, [item.row]);
  }
  // Account-id order, as postEntry's: two statements moving the same balances lock them in the same order.
  const ordered = [...moves.values()].sort((a, b) => (a.accountId < b.accountId ? -1 : 1));
  return { groups: [...byTable], moves: ordered };
}

function mergeMoves(a: BalanceMove, b: BalanceMove): BalanceMove {
  return { ...a, amount: a.amount + b.amount, atMs: a.atMs > b.atMs ? a.atMs : b.atMs };
}

async function write(trx: Tx, pending: Pending[]): Promise<void> {
  if (pending.length === 0) return;
  const { groups, moves } = gather(pending);
  if (isPostgres(trx)) return writePostgres(trx, groups, moves);
  if (moves.length > 0) throw new Error('balance moves are deferred on PostgreSQL only');
  for (const [table, rows] of groups)
    for (let at = 0; at < rows.length; at += SQLITE_ROWS_PER_INSERT)
      await trx
        .insertInto(table)
        .values(rows.slice(at, at + SQLITE_ROWS_PER_INSERT) as never)
        .execute();
}

/** One statement: the balance moves, then every table's rows; foreign keys are checked at its end. */
async function writePostgres(trx: Tx, groups: [DeferredTable, Row[]][], moves: BalanceMove[]): Promise<void> {
  let creator: QueryCreator<Database> = trx;
  const moveNames = new Map<string, string>();
  for (const [i, move] of moves.entries()) {
    const name = `move_${i}`;
    moveNames.set(`${move.accountId} ${move.currency}`, name);
    creator = creator.with(name, (db) =>
      db
        .updateTable('ledger_accounts')
        .set((eb) => ({ balance: eb('balance', '+', move.amount), updated_at: move.atMs }))
        .where('id', '=', move.accountId)
        .where('currency', '=', move.currency)
        .returning('id'),
    ) as never;
  }
  const tables = groups.map(([table, rows]): [DeferredTable, Row[]] => {
    if (table !== 'postings' || moveNames.size === 0) return [table, rows];
    return [table, (rows as Database['postings'][]).map((line) => boundToMove(line, moveNames))];
  });
  for (const [i, [table, rows]] of tables.slice(0, -1).entries())
    creator = creator.with(`deferred_${i}`, (db) => db.insertInto(table).values(rows as never)) as never;
  const [table, rows] = tables[tables.length - 1]!;
  try {
    await creator
      .insertInto(table)
      .values(rows as never)
      .execute();
  } catch (err) {
    throw balanceFloorError(err, moves) ?? err;
  }
}

function boundToMove(line: Database['postings'], moveNames: Map<string, string>): Database['postings'] {
  const name = moveNames.get(`${line.account_id} ${line.currency}`);
  if (!name) return line;
  return { ...line, account_id: sql<string>`(select "id" from ${sql.table(name)})` as never };
}

/** A debit past zero, which the CHECK on ledger_accounts.balance refused: INSUFFICIENT_BALANCE, naming the account. */
function balanceFloorError(err: unknown, moves: BalanceMove[]): Error | undefined {
  const e = err as { code?: string; constraint?: string; detail?: string };
  if (e.code !== '23514' || e.constraint !== 'ledger_accounts_balance_check') return undefined;
  const debits = moves.filter((m) => m.amount < 0n);
  const account = debits.find((m) => e.detail?.includes(m.accountId)) ?? debits[0];
  return account ? insufficientBalance(account.accountId) : undefined;
}
