// On PostgreSQL every statement is a round trip, and BEGIN and COMMIT are two more. A transaction whose
// first statements only read, and whose writes all go in its last statement, needs neither: at READ
// COMMITTED (the service's level) each statement of a transaction takes its own snapshot anyway, and one
// statement is atomic by itself. So this driver sends BEGIN only before the first statement that writes or
// locks, and a statement marked by `asLastStatement` while BEGIN is still unsent runs on its own and
// commits with itself; COMMIT (or ROLLBACK) is then not sent either. A transfer-out's request is its reads
// and one statement that writes every row of it (store/deferred-writes.ts). Which statement counts as a
// write or a lock is store/rules.ts isPlainRead's to say (src/store/README.md).
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  PostgresDialect,
  type PostgresDialectConfig,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { assert } from '../domain/assert.ts';
import { isLastStatement, isPlainRead, StatementChecks } from './rules.ts';

type State = 'none' | 'unsent' | 'open' | 'committed';

class LazyBeginConnection implements DatabaseConnection {
  state: State = 'none';
  readonly checks = new StatementChecks();
  constructor(readonly inner: DatabaseConnection) {}

  private async beforeStatement(query: CompiledQuery): Promise<void> {
    // A write after the last statement fails here, whether BEGIN was sent or not.
    this.checks.before(query);
    if (this.state !== 'unsent' || isPlainRead(query)) return;
    if (isLastStatement(query)) this.state = 'committed';
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

/** Every connection the driver is given back is one it handed out. */
function lazyOf(connection: DatabaseConnection): LazyBeginConnection {
  assert(connection instanceof LazyBeginConnection, 'the lazy-BEGIN driver is given back its own connections');
  return connection;
}

/** Kysely's PostgreSQL driver with BEGIN sent late and COMMIT only when BEGIN was (see above). */
class LazyBeginDriver implements Driver {
  private readonly connections = new WeakMap<DatabaseConnection, LazyBeginConnection>();
  constructor(
    private readonly inner: Driver,
    private readonly beforeAcquire: () => void,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    this.beforeAcquire();
    const connection = await this.inner.acquireConnection();
    let lazy = this.connections.get(connection);
    if (!lazy) this.connections.set(connection, (lazy = new LazyBeginConnection(connection)));
    return lazy;
  }
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const lazy = lazyOf(connection);
    // An isolation level or access mode must be set by the transaction's first statement: sent at once.
    if (settings.isolationLevel || settings.accessMode) {
      await this.inner.beginTransaction(lazy.inner, settings);
      lazy.state = 'open';
    } else lazy.state = 'unsent';
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const lazy = lazyOf(connection);
    const open = lazy.state === 'open';
    lazy.state = 'none';
    lazy.checks.ended();
    if (open) await this.inner.commitTransaction(lazy.inner);
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const lazy = lazyOf(connection);
    const open = lazy.state === 'open';
    lazy.state = 'none';
    lazy.checks.ended();
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
    const lazy = lazyOf(connection);
    lazy.state = 'none';
    lazy.checks.ended();
    return this.inner.releaseConnection(lazy.inner);
  }
  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** `beforeAcquire` runs before each connection is taken from the pool (store/db.ts: store.db never copied). */
export class LazyBeginPostgresDialect extends PostgresDialect {
  constructor(
    config: PostgresDialectConfig,
    private readonly beforeAcquire: () => void,
  ) {
    super(config);
  }
  override createDriver(): Driver {
    return new LazyBeginDriver(super.createDriver(), this.beforeAcquire);
  }
}
