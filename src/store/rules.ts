// The store's rules that a statement can be checked against as it is sent, by both engines' connections
// (store/db.ts for SQLite, store/pg-lazy-begin.ts for PostgreSQL). Each rule, and why it holds, is in
// src/store/README.md; its name below is the one an error says when the rule is broken.
import type { CompiledQuery, DatabaseConnection } from 'kysely';
import { assert } from '../domain/assert.ts';

/** The name of each rule of src/store/README.md, as a broken one's error says it. */
export const RULES = {
  lastWrite: 'the deferred write is the last write of its transaction',
  noReadBack: 'a deferred row is not read back inside its transaction',
  dbNotCopied: 'store.db is read where it is used, never copied',
  movesOnPostgres: 'balance moves are deferred on PostgreSQL only',
  oneUpdatePerRow: 'a row takes one deferred update per transaction, or updates that merge',
  statementsBounded: 'compiled statements are defined once, at module level',
} as const;

/**
 * A read that takes no lock and writes nothing: a plain SELECT without a WITH (which may hold a write) and
 * without a locking clause. Every other statement, raw SQL included, counts as a write or a lock.
 */
export function isPlainRead(query: CompiledQuery): boolean {
  const node = query.query;
  return (
    node.kind === 'SelectQueryNode' &&
    node.with === undefined &&
    !/\bfor (update|share|no key update|key share)\b/i.test(query.sql)
  );
}

/**
 * The statements marked as the last write of their transaction. The mark is on the statement itself, not in
 * the async context: on Node 20 an AsyncLocalStorage in use puts a hook on every promise the process makes,
 * which cost SQLite's money path a tenth to a fifth of its throughput (docs/performance.md).
 */
const lastStatements = new WeakSet<CompiledQuery>();

/**
 * Marks `query` as the last write of its transaction (the deferred writes' statement): nothing but reads
 * may follow it. On PostgreSQL, with nothing written before it, it runs on its own, without BEGIN.
 */
export function asLastStatement<Q extends CompiledQuery>(query: Q): Q {
  lastStatements.add(query);
  return query;
}

export function isLastStatement(query: CompiledQuery): boolean {
  return lastStatements.has(query);
}

/** The statements that end a savepoint or the transaction: they may follow the last write. */
const ENDS_TRANSACTION = /^\s*(release|rollback|commit)\b/i;

const WRITE_AFTER_LAST = `${RULES.lastWrite}: a statement that writes came after it`;

/** Statements that read a row by its id, and so could be reading a deferred one back. */
const READS_BY_ID = new Set(['SelectQueryNode', 'UpdateQueryNode', 'DeleteQueryNode']);

/**
 * What one connection checks before each statement of the transaction it runs. A connection runs one
 * transaction at a time (SQLite's one connection runs a group commit's transactions one after another, each
 * ending with its savepoint), so what it holds is that transaction's.
 */
export class StatementChecks {
  /** The rows deferred and not yet written, by id: the quoted name of their table (store/deferred-writes.ts). */
  readonly deferredRows = new Map<unknown, string>();
  private lastSent = false;

  /** Throws, naming the rule, when `query` breaks one; cheap: no query, a few lookups. */
  before(query: CompiledQuery): void {
    if (this.deferredRows.size > 0) this.checkNotReadBack(query);
    if (this.lastSent) {
      const ends = ENDS_TRANSACTION.test(query.sql);
      assert(ends || isPlainRead(query), WRITE_AFTER_LAST);
      if (ends) this.lastSent = false;
    } else if (lastStatements.has(query)) this.lastSent = true;
  }

  /** The transaction on this connection ended (its commit or rollback went through the driver). */
  ended(): void {
    this.lastSent = false;
    this.deferredRows.clear();
  }

  private checkNotReadBack(query: CompiledQuery): void {
    if (!READS_BY_ID.has(query.query.kind)) return;
    for (const value of query.parameters) {
      const table = this.deferredRows.get(value);
      if (table === undefined) continue;
      assert(
        !query.sql.includes(table),
        `${RULES.noReadBack}: ${table} ${String(value)} is written only once the transaction's work is done`,
      );
    }
  }
}

/** A connection of this store's drivers: it checks each statement it sends. */
interface CheckingConnection extends DatabaseConnection {
  checks: StatementChecks;
}

/** The checks of `connection`, which every connection of this store's drivers has. */
export function checksOf(connection: DatabaseConnection): StatementChecks {
  const { checks } = connection as Partial<CheckingConnection>;
  assert(checks instanceof StatementChecks, "every connection of the store's drivers checks its statements");
  return checks;
}
