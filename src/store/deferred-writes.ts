// Rows that nothing reads back inside the transaction that writes them (a new payment, its events, the jobs
// that deliver or follow up on a change, a webhook attempt's record and, on PostgreSQL, ledger entries and the
// balances they move), and updates whose outcome nothing waits for (the end of a job), are held until the
// transaction's work is done and then written together: one statement on PostgreSQL
// (data-modifying WITH), one multi-row INSERT per table on SQLite. They still commit with the change they
// belong to, or not at all. Every store.tx opens a buffer (see db.ts); a caller outside one writes at once.
// On PostgreSQL that statement is the transaction's last: when the transaction wrote nothing before it, it
// runs without BEGIN and COMMIT (store/pg-lazy-begin.ts). The rules this rests on (the last write, no
// read-back, balance moves on PostgreSQL only) are src/store/README.md's.
import { type CompiledQuery, type QueryCreator, sql } from 'kysely';
import { assert, present } from '../domain/assert.ts';
import { insufficientBalance } from '../domain/errors.ts';
import type { Database, Tx } from './schema.ts';
import { isPostgres } from './dialect.ts';
import { asLastStatement, checksOf, RULES, type StatementChecks } from './rules.ts';
import { statement, statementNumbered, type Statement } from './compiled.ts';

const DEFERRED_TABLES = [
  'transactions',
  'quotes',
  'events',
  'jobs',
  'journal_entries',
  'postings',
  'webhook_attempts',
  'rail_payments',
] as const;
export type DeferredTable = (typeof DEFERRED_TABLES)[number];
type Row = Database[DeferredTable];

/** Each table's name as its statements quote it, to tell a read of it (store/rules.ts, no read-back). */
const QUOTED = Object.fromEntries(DEFERRED_TABLES.map((t) => [t, `"${t}"`])) as Record<DeferredTable, string>;

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

interface Buffer {
  pending: Pending[];
  /** The queued rows by id, for the read-back check: the map of the connection's checks, once asked for. */
  rows: Map<unknown, string> | undefined;
}

const buffers = new WeakMap<Tx, Buffer>();

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
  if (!buffer) return write(trx, pending);
  buffer.pending.push(...pending);
  noteRows((buffer.rows ??= (await checksOfTx(trx)).deferredRows), pending);
}

/** The checks of the connection `trx` runs on (store/rules.ts): its one connection, asked for without a query. */
function checksOfTx(trx: Tx): Promise<StatementChecks> {
  return trx.getExecutor().provideConnection(async (connection) => checksOf(connection));
}

/** Notes the rows of `pending` that have an id, so that a statement reading one back fails by the rule's name. */
function noteRows(rows: Map<unknown, string>, pending: Pending[]): void {
  for (const item of pending) {
    if (!('row' in item)) continue;
    const { id } = item.row as { id?: unknown };
    if (id !== undefined) rows.set(id, QUOTED[item.table]);
  }
}

// SQLite has no data-modifying WITH: a posting there cannot take its account from its move's RETURNING.
const MOVES_ON_POSTGRES = `${RULES.movesOnPostgres}: SQLite moves a balance at once (ledger/journal.ts)`;

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
  assert(isPostgres(trx), MOVES_ON_POSTGRES);
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
  if (!buffer) buffers.set(trx, (buffer = { pending: [], rows: undefined }));
  const mark = buffer.pending.length;
  try {
    const value = await fn(trx);
    const pending = buffer.pending.splice(0);
    // Written by the next statement: from then on they may be read like any other row.
    buffer.rows?.clear();
    // The outermost call's write is the transaction's last statement: its commit follows.
    await write(trx, pending, outermost);
    return value;
  } catch (err) {
    buffer.pending.splice(mark);
    if (buffer.rows) {
      buffer.rows.clear();
      noteRows(buffer.rows, buffer.pending);
    }
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
      const { key } = item.update;
      const seen = updates.get(key);
      if (!seen) {
        updates.set(key, item.update);
        continue;
      }
      const merge = seen.update === item.update.update ? seen.merge : undefined;
      assert(merge, `${RULES.oneUpdatePerRow}: ${key} is updated twice in one transaction`);
      updates.set(key, { ...seen, values: merge(seen.values, item.update.values) });
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
  const statements: (() => CompiledQuery)[] = [];
  for (const [table, rows] of gathered.groups)
    for (let at = 0; at < rows.length; at += SQLITE_ROWS_PER_INSERT)
      statements.push(() => inserts[table].compile(trx, rows.slice(at, at + SQLITE_ROWS_PER_INSERT)));
  for (const { update, values } of gathered.updates) statements.push(() => update.compile(trx, values));
  // The last of them is the transaction's last write, as PostgreSQL's one statement is (store/rules.ts).
  for (const [i, compile] of statements.entries())
    await trx.executeQuery(last && i === statements.length - 1 ? asLastStatement(compile()) : compile());
}

/**
 * One statement: the balance moves and the updates, then every table's rows; foreign keys are checked at
 * its end. Its last part is the statement itself, the others ride in it as WITH queries.
 */
async function writePostgres(trx: Tx, { groups, moves, updates }: Gathered, last: boolean): Promise<void> {
  const moveIndex = new Map(moves.map((move, i) => [`${move.accountId} ${move.currency}`, i]));
  const plan: CombinedPlan = {
    updates: updates.map(({ update }) => update.number),
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

interface CombinedPlan {
  /** Each update's statement, by its number (store/compiled.ts), so that the plan is plain data. */
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
      const move = present(plan.postingMoves[i], 'the plan names a balance move, or none, for each posting');
      return move < 0 ? line : { ...line, account_id: sql<string>`(select "id" from ${sql.table(`move_${move}`)})` };
    });
  const parts = [
    ...plan.updates.map(
      (u, i) => (q: QueryCreator<Database>) => statementNumbered(u).build(q, v.updates[i], engine, undefined),
    ),
    ...plan.tables.map((table, t) => (q: QueryCreator<Database>) => {
      const rows = present(v.rows[t], 'the plan names a table for each group of rows');
      return q.insertInto(table).values((table === 'postings' ? bound(rows) : rows) as never);
    }),
  ];
  for (const [i, part] of parts.slice(0, -1).entries()) creator = creator.with(`deferred_${i}`, part as never) as never;
  return present(parts.at(-1), 'an empty buffer writes no statement (write)')(creator);
});

/** A debit past zero, which the CHECK on ledger_accounts.balance refused: INSUFFICIENT_BALANCE, naming the account. */
function balanceFloorError(err: unknown, moves: BalanceMove[]): Error | undefined {
  const e = err as { code?: string; constraint?: string; detail?: string };
  if (e.code !== '23514' || e.constraint !== 'ledger_accounts_balance_check') return undefined;
  const debits = moves.filter((m) => m.amount < 0n);
  const account = debits.find((m) => e.detail?.includes(m.accountId)) ?? debits[0];
  return account ? insufficientBalance(account.accountId) : undefined;
}
