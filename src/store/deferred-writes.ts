// Rows that nothing reads back inside the transaction that writes them (a new payment, its events, the jobs
// that deliver or follow up on a change, a webhook attempt's record and, on PostgreSQL, ledger entries and the
// balances they move), and updates whose outcome nothing waits for (the end of a job), are held until the
// transaction's work is done and then written together: one statement on PostgreSQL
// (data-modifying WITH), one multi-row INSERT per table on SQLite. They still commit with the change they
// belong to, or not at all. Every store.tx opens a buffer (see db.ts); a caller outside one writes at once.
// On PostgreSQL that statement is the transaction's last: when the transaction wrote nothing before it, it
// runs without BEGIN and COMMIT (store/pg-lazy-begin.ts).
import { type QueryCreator, sql } from 'kysely';
import { insufficientBalance } from '../domain/errors.ts';
import type { Database, Tx } from './schema.ts';
import { isPostgres } from './dialect.ts';
import { asLastStatement } from './pg-lazy-begin.ts';
import { statement, type Statement } from './compiled.ts';

const DEFERRED_TABLES = [
  'transactions',
  'quotes',
  'events',
  'jobs',
  'journal_entries',
  'postings',
  'webhook_attempts',
] as const;
export type DeferredTable = (typeof DEFERRED_TABLES)[number];
type Row = Database[DeferredTable];

/** A change of a stored balance (ledger_accounts); the balance may not go below zero (a CHECK says so). */
export interface BalanceMove {
  accountId: string;
  currency: string;
  amount: bigint;
  atMs: bigint;
}

/**
 * An UPDATE whose count of changed rows nobody reads, of one row named by `key` (table and id). PostgreSQL
 * applies only one of two updates of a row in one statement, so a second one of the same key is merged into
 * the first by `merge` (the same statement, the two values made one); without it, it is refused.
 */
export interface DeferredUpdate<V = any> {
  key: string;
  update: Statement<V, unknown>;
  values: V;
  merge?: (earlier: V, later: V) => V;
}

type Pending = { table: DeferredTable; row: Row } | { move: BalanceMove } | { update: DeferredUpdate };

const buffers = new WeakMap<Tx, Pending[]>();

/** One multi-row INSERT per table, compiled once per number of rows. */
const inserts = Object.fromEntries(
  DEFERRED_TABLES.map((table) => [table, statement((db, rows: Row[]) => db.insertInto(table).values(rows as never))]),
) as Record<DeferredTable, Statement<Row[], unknown>>;

/** Inserts `rows` into `table` now, in one statement (SQLite's ledger entries, which are not deferred). */
export async function insertRows<T extends DeferredTable>(trx: Tx, table: T, rows: Database[T][]): Promise<void> {
  await inserts[table].run(trx, rows);
}

/** Rows per INSERT on SQLite, well under its limit of bound parameters per statement. */
const SQLITE_ROWS_PER_INSERT = 200;

/** Queues `row` for `table` in the caller's transaction; writes it at once when the caller opened none. */
export function deferInsert<T extends DeferredTable>(trx: Tx, table: T, row: Database[T]): Promise<void> {
  return queue(trx, [{ table, row }]);
}

/** Queues an UPDATE in the caller's transaction (see DeferredUpdate); runs it at once when the caller opened none. */
export function deferUpdate<V>(trx: Tx, update: DeferredUpdate<V>): Promise<void> {
  return queue(trx, [{ update }]);
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
    await write(trx, pending, outermost);
    return value;
  } catch (err) {
    buffer.splice(mark);
    throw err;
  }
}

interface Gathered {
  groups: [DeferredTable, Row[]][];
  moves: BalanceMove[];
  updates: DeferredUpdate[];
}

/** Rows by table, in the order each table was first queued, the moves merged by account, and the updates. */
function gather(pending: Pending[]): Gathered {
  const byTable = new Map<DeferredTable, Row[]>();
  const moves = new Map<string, BalanceMove>();
  const updates = new Map<string, DeferredUpdate>();
  for (const item of pending) {
    if ('move' in item) {
      const key = `${item.move.accountId} ${item.move.currency}`;
      const seen = moves.get(key);
      // One UPDATE per row and statement: PostgreSQL would apply only one of two updates of the same row.
      moves.set(key, seen ? mergeMoves(seen, item.move) : item.move);
      continue;
    }
    if ('update' in item) {
      const seen = updates.get(item.update.key);
      if (seen && !(seen.merge && seen.update === item.update.update))
        throw new Error(`${item.update.key} is updated twice in one transaction`);
      updates.set(
        item.update.key,
        seen ? { ...seen, values: seen.merge!(seen.values, item.update.values) } : item.update,
      );
      continue;
    }
    const rows = byTable.get(item.table);
    if (rows) rows.push(item.row);
    else byTable.set(item.table, [item.row]);
  }
  // Account-id order, as postEntry's: two statements moving the same balances lock them in the same order.
  const ordered = [...moves.values()].sort((a, b) => (a.accountId < b.accountId ? -1 : 1));
  return { groups: [...byTable], moves: ordered, updates: [...updates.values()] };
}

function mergeMoves(a: BalanceMove, b: BalanceMove): BalanceMove {
  return { ...a, amount: a.amount + b.amount, atMs: a.atMs > b.atMs ? a.atMs : b.atMs };
}

/** Writes `pending`; `last` when nothing but reads follows in the transaction (PostgreSQL may then skip BEGIN). */
async function write(trx: Tx, pending: Pending[], last = false): Promise<void> {
  if (pending.length === 0) return;
  const gathered = gather(pending);
  if (isPostgres(trx)) return writePostgres(trx, gathered, last);
  if (gathered.moves.length > 0) throw new Error('balance moves are deferred on PostgreSQL only');
  for (const [table, rows] of gathered.groups)
    for (let at = 0; at < rows.length; at += SQLITE_ROWS_PER_INSERT)
      await inserts[table].run(trx, rows.slice(at, at + SQLITE_ROWS_PER_INSERT));
  for (const { update, values } of gathered.updates) await update.run(trx, values);
}

/**
 * One statement: the balance moves and the updates, then every table's rows; foreign keys are checked at
 * its end. Its last part is the statement itself, the others ride in it as WITH queries.
 */
async function writePostgres(trx: Tx, { groups, moves, updates }: Gathered, last: boolean): Promise<void> {
  const moveIndex = new Map(moves.map((move, i) => [`${move.accountId} ${move.currency}`, i]));
  const plan: CombinedPlan = {
    updates: updates.map(({ update }) => registered(update)),
    tables: groups.map(([table]) => table),
    postingMoves: groups
      .filter(([table]) => table === 'postings')
      .flatMap(([, rows]) =>
        (rows as Database['postings'][]).map((p) => moveIndex.get(`${p.account_id} ${p.currency}`) ?? -1),
      ),
  };
  const values: Combined = {
    moves: moves.map(({ accountId, currency, amount, atMs }) => ({ accountId, currency, amount, atMs })),
    updates: updates.map((u) => u.values),
    rows: groups.map(([, rows]) => rows),
  };
  try {
    const query = combined.compile(trx, values, plan);
    await trx.executeQuery(last ? asLastStatement(query) : query);
  } catch (err) {
    throw balanceFloorError(err, moves) ?? err;
  }
}

/** The update statements deferred so far, numbered, so that a plan names them as plain data. */
const updateStatements: Statement<unknown, unknown>[] = [];

function registered(update: Statement<unknown, unknown>): number {
  const known = updateStatements.indexOf(update);
  return known >= 0 ? known : updateStatements.push(update) - 1;
}

interface CombinedPlan {
  /** Each update's statement (updateStatements). */
  updates: number[];
  tables: DeferredTable[];
  /** For each posting, in order, the balance move its account id comes from, or -1. */
  postingMoves: number[];
}

interface Combined {
  moves: BalanceMove[];
  updates: unknown[];
  /** Per table of the plan, its rows. */
  rows: Row[][];
}

const combined = statement((db, v: Combined, engine, plan: CombinedPlan) => {
  let creator = db;
  for (const [i, move] of v.moves.entries())
    creator = creator.with(`move_${i}`, (q) =>
      q
        .updateTable('ledger_accounts')
        .set((eb) => ({ balance: eb('balance', '+', move.amount), updated_at: move.atMs }))
        .where('id', '=', move.accountId)
        .where('currency', '=', move.currency)
        .returning('id'),
    ) as never;
  // Each posting on an account whose balance moves takes its id from that move's RETURNING (see deferLedgerEntry).
  const bound = (rows: Row[]) =>
    (rows as Database['postings'][]).map((line, i) => {
      const move = plan.postingMoves[i]!;
      return move < 0 ? line : { ...line, account_id: sql<string>`(select "id" from ${sql.table(`move_${move}`)})` };
    });
  const parts = [
    ...plan.updates.map(
      (u, i) => (q: QueryCreator<Database>) => updateStatements[u]!.build(q, v.updates[i], engine, undefined),
    ),
    ...plan.tables.map(
      (table, t) => (q: QueryCreator<Database>) =>
        q.insertInto(table).values((table === 'postings' ? bound(v.rows[t]!) : v.rows[t]!) as never),
    ),
  ];
  for (const [i, part] of parts.slice(0, -1).entries()) creator = creator.with(`deferred_${i}`, part as never) as never;
  return parts[parts.length - 1]!(creator);
});

/** A debit past zero, which the CHECK on ledger_accounts.balance refused: INSUFFICIENT_BALANCE, naming the account. */
function balanceFloorError(err: unknown, moves: BalanceMove[]): Error | undefined {
  const e = err as { code?: string; constraint?: string; detail?: string };
  if (e.code !== '23514' || e.constraint !== 'ledger_accounts_balance_check') return undefined;
  const debits = moves.filter((m) => m.amount < 0n);
  const account = debits.find((m) => e.detail?.includes(m.accountId)) ?? debits[0];
  return account ? insufficientBalance(account.accountId) : undefined;
}
