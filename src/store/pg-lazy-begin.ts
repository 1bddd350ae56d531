// On PostgreSQL every statement is a round trip, and BEGIN and COMMIT are two more. A transaction whose
// first statements only read, and whose writes all go in its last statement, needs neither: at READ
// COMMITTED (the service's level) each statement of a transaction takes its own snapshot anyway, and one
// statement is atomic by itself. So this driver sends BEGIN only before the first statement that writes or
// locks, and a statement marked by `asLastStatement` while BEGIN is still unsent runs on its own and
// commits with itself; COMMIT (or ROLLBACK) is then not sent either. A transfer-out's request is its reads
// and one statement that writes every row of it (store/deferred-writes.ts).
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  PostgresDialect,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

/** A read that takes no lock and writes nothing: a plain SELECT without a WITH (which may hold a write). */
function isPlainRead(query: CompiledQuery): boolean {
  const node = query.query;
  return (
    node.kind === 'SelectQueryNode' &&
    node.with === undefined &&
    !/\bfor (update|share|no key update|key share)\b/i.test(query.sql)
  );
}

/**
 * The statements marked as the last of their transaction. The mark is on the statement itself, not in the
 * async context: on Node 20 an AsyncLocalStorage in use puts a hook on every promise the process makes,
 * which cost SQLite's money path a tenth to a fifth of its throughput (docs/performance.md).
 */
const lastStatements = new WeakSet<CompiledQuery>();

/**
 * Marks `query` as the last statement of its transaction: with nothing written before it, it runs on its
 * own, without BEGIN. Nothing but reads may follow it in the transaction.
 */
export function asLastStatement<Q extends CompiledQuery>(query: Q): Q {
  lastStatements.add(query);
  return query;
}

type State = 'none' | 'unsent' | 'open' | 'committed';

class LazyBeginConnection implements DatabaseConnection {
  state: State = 'none';
  constructor(readonly inner: DatabaseConnection) {}

  private async beforeStatement(query: CompiledQuery): Promise<void> {
    if (this.state === 'none' || this.state === 'open' || isPlainRead(query)) return;
    if (this.state === 'committed')
      throw new Error('a statement that writes came after the last statement of its transaction');
    if (lastStatements.has(query)) this.state = 'committed';
    else {
      await this.inner.executeQuery(CompiledQuery.raw('begin'));
      this.state = 'open';
    }
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    await this.beforeStatement(query);
    return this.inner.executeQuery<R>(query);
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    await this.beforeStatement(query);
    yield* this.inner.streamQuery<R>(query, chunkSize);
  }
}

/** Kysely's PostgreSQL driver with BEGIN sent late and COMMIT only when BEGIN was (see above). */
class LazyBeginDriver implements Driver {
  private readonly connections = new WeakMap<DatabaseConnection, LazyBeginConnection>();
  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    let lazy = this.connections.get(connection);
    if (!lazy) this.connections.set(connection, (lazy = new LazyBeginConnection(connection)));
    return lazy;
  }
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const lazy = connection as LazyBeginConnection;
    // An isolation level or access mode must be set by the transaction's first statement: sent at once.
    if (settings.isolationLevel || settings.accessMode) {
      await this.inner.beginTransaction(lazy.inner, settings);
      lazy.state = 'open';
    } else lazy.state = 'unsent';
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const lazy = connection as LazyBeginConnection;
    const open = lazy.state === 'open';
    lazy.state = 'none';
    if (open) await this.inner.commitTransaction(lazy.inner);
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const lazy = connection as LazyBeginConnection;
    const open = lazy.state === 'open';
    lazy.state = 'none';
    if (open) await this.inner.rollbackTransaction(lazy.inner);
  }
  // Savepoints go through the lazy connection, so that a savepoint sends BEGIN first when it is unsent.
  async savepoint(connection: DatabaseConnection, name: string) {
    await connection.executeQuery(CompiledQuery.raw(`savepoint "${name}"`));
  }
  async rollbackToSavepoint(connection: DatabaseConnection, name: string) {
    await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint "${name}"`));
  }
  async releaseSavepoint(connection: DatabaseConnection, name: string) {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint "${name}"`));
  }
  releaseConnection(connection: DatabaseConnection): Promise<void> {
    const lazy = connection as LazyBeginConnection;
    lazy.state = 'none';
    return this.inner.releaseConnection(lazy.inner);
  }
  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

export class LazyBeginPostgresDialect extends PostgresDialect {
  override createDriver(): Driver {
    return new LazyBeginDriver(super.createDriver());
  }
}
