// The store's contract (what deferred writes, lazy BEGIN, the `db` getter and compiled statements rest on,
// each rule with why and where it is checked) is src/store/README.md: read it before changing this folder.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { makeFolders } from './folders.ts';
import {
  CompiledQuery,
  Kysely,
  SqliteDialect,
  sql,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from 'kysely';
import { assert } from '../domain/assert.ts';
import type { Database, Db, Tx } from './schema.ts';
import type { Engine } from './dialect.ts';
import { withDeferredWrites } from './deferred-writes.ts';
import { LazyBeginPostgresDialect } from './pg-lazy-begin.ts';
import { RULES, StatementChecks } from './rules.ts';
import { sqlitePath } from './paths.ts';

export type { Engine } from './dialect.ts';
export type { Db, Tx } from './schema.ts';

/**
 * A transaction that every store.tx inside `withinTransaction` joins, as a savepoint: the idempotency
 * layer stores a request's answer in the same database transaction as everything the request did.
 * `open` turns false when the outer work ends, so work that outlives it never joins a finished transaction.
 */
const ambient = new AsyncLocalStorage<{ trx: Tx; open: boolean }>();
let savepoints = 0;
/** Frames still open, of every request. */
let openFrames = 0;

export async function withinTransaction<T>(trx: Tx, fn: () => Promise<T>): Promise<T> {
  const frame = { trx, open: true };
  openFrames++;
  try {
    return await ambient.run(frame, fn);
  } finally {
    frame.open = false;
    // While an AsyncLocalStorage is enabled, Node 20 runs a hook on every promise the process makes (a tenth
    // to a fifth of SQLite's money path, docs/performance.md). With no frame open there is nothing to join, so
    // it is turned off until the next idempotent request turns it on again.
    if (--openFrames === 0) ambient.disable();
  }
}

/** Runs fn outside any ambient transaction (the job worker: its passes are never part of a request's). */
export function detached<T>(fn: () => T): T {
  return ambient.exit(fn);
}

async function joinAmbient<T>(trx: Tx, fn: (trx: Tx) => Promise<T>): Promise<T> {
  const name = sql.raw(`nested_${++savepoints}`);
  await sql`savepoint ${name}`.execute(trx);
  try {
    const value = await fn(trx);
    await sql`release savepoint ${name}`.execute(trx);
    return value;
  } catch (err) {
    await sql`rollback to savepoint ${name}`.execute(trx);
    await sql`release savepoint ${name}`.execute(trx);
    throw err;
  }
}

/** The open ambient transaction, if the caller runs inside one. */
function joinable(): Tx | undefined {
  const frame = ambient.getStore();
  return frame?.open ? frame.trx : undefined;
}

const COPIED =
  `${RULES.dbNotCopied}: a database kept from outside an open ambient transaction took a connection inside ` +
  'it, and cannot see what that transaction wrote';

/**
 * Before either driver hands out a connection: inside an open ambient transaction, store.db and store.tx go
 * through it and take none, so whatever asks for one holds a copy of the root database, read before the
 * transaction opened. On SQLite it would wait forever for the one connection the transaction holds.
 */
function assertNotCopied(): void {
  assert(joinable() === undefined, COPIED);
}

export interface Store {
  db: Db;
  engine: Engine;
  /** Runs fn in one database transaction, retrying a bounded number of times on PostgreSQL serialization failures. */
  tx<T>(fn: (trx: Tx) => Promise<T>, options?: TxOptions): Promise<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface TxOptions {
  /**
   * The transaction rewrites or deletes a whole workspace or table. On SQLite it runs in a commit of its own,
   * with the page images it may roll back to kept in a temporary file rather than in memory
   * (withSubJournalOnDisk). No effect on PostgreSQL.
   */
  bulk?: boolean;
}

/**
 * The SQLite driver: Kysely's own, with two changes. `begin immediate` takes the write lock up front, so
 * two processes on one file (the server and the CLI) queue on the busy timeout instead of failing with
 * SQLITE_BUSY halfway through a transaction. And prepared statements are cached by their SQL text: the
 * service runs the same few hundred statements over and over, and preparing one costs as much as running it.
 */
class SqliteConnection implements DatabaseConnection {
  private readonly statements = new Map<string, SqliteStatement>();
  readonly checks = new StatementChecks();
  constructor(private readonly db: SqliteDatabase.Database) {}

  private prepare(text: string): SqliteStatement {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      // Bounded: statements built from dynamic filters could otherwise grow the cache without end.
      if (this.statements.size >= 2000) this.statements.delete(this.statements.keys().next().value!);
      this.statements.set(text, statement);
    }
    return statement;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    this.checks.before(query);
    const statement = this.prepare(query.sql);
    const parameters = query.parameters as unknown[];
    if (statement.reader) return { rows: statement.all(...parameters) as R[] };
    const { changes, lastInsertRowid } = statement.run(...parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    this.checks.before(query);
    for (const row of this.prepare(query.sql).iterate(...(query.parameters as unknown[]))) yield { rows: [row as R] };
  }
}

type SqliteStatement = SqliteDatabase.Statement;

class SqliteDriver implements Driver {
  private readonly connection: SqliteConnection;
  private queue: Promise<void> = Promise.resolve();
  private release: (() => void) | undefined;

  constructor(private readonly db: SqliteDatabase.Database) {
    this.connection = new SqliteConnection(db);
  }

  async init(): Promise<void> {}

  /** SQLite has one connection: callers take turns. */
  async acquireConnection(): Promise<DatabaseConnection> {
    assertNotCopied();
    const previous = this.queue;
    let release!: () => void;
    this.queue = new Promise((resolve) => (release = resolve));
    await previous;
    this.release = release;
    return this.connection;
  }

  async releaseConnection(): Promise<void> {
    this.release?.();
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }
  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint "${name}"`));
  }
  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint "${name}"`));
  }
  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint "${name}"`));
  }
  async destroy(): Promise<void> {
    this.db.close();
  }
}

class CachingSqliteDialect extends SqliteDialect {
  constructor(private readonly file: SqliteDatabase.Database) {
    super({ database: file });
  }
  override createDriver(): Driver {
    return new SqliteDriver(this.file);
  }
}

/**
 * A pg client that prepares every parameterized statement once per connection (a named statement, keyed
 * by a hash of its text) instead of having the server parse and plan it on every call. The service runs
 * a few hundred distinct statements, so on a busy server this saves most of PostgreSQL's per-query CPU.
 */
const statementNames = new Map<string, string>();

class PreparingClient extends pg.Client {
  // pg.Client.query has a dozen overloads; this one forwards whatever it gets, so it calls the base method
  // through Reflect rather than pick an overload.
  override query(config: unknown, values?: unknown, callback?: unknown): any {
    const base = super.query;
    if (typeof config === 'string' && Array.isArray(values) && values.length > 0) {
      let name = statementNames.get(config);
      if (name === undefined) {
        // Bounded: statements built from dynamic filters could otherwise grow it without end.
        if (statementNames.size >= 2000) statementNames.clear();
        statementNames.set(config, (name = `k${createHash('sha1').update(config).digest('base64url')}`));
      }
      return Reflect.apply(base, this, [{ name, text: config, values }, callback]);
    }
    return Reflect.apply(base, this, [config, values, callback]);
  }
}

let pgParsersInstalled = false;
function installPgParsers(): void {
  if (pgParsersInstalled) return;
  // int8 (and sums cast to it) come back as bigint, never as a lossy string or number.
  pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => BigInt(value));
  pgParsersInstalled = true;
}

export interface StoreOptions {
  dataDir: string;
  databaseUrl?: string | undefined;
  /** Connections per process on PostgreSQL. */
  poolSize?: number;
  /** Named prepared statements on PostgreSQL (see PreparingClient); off behind a transaction-mode pooler. */
  preparedStatements?: boolean;
}

/** How long a query waits for a PostgreSQL connection: the pool's queue and the connection's set-up together. */
const CONNECT_TIMEOUT_MS = 10_000;

export function openStore(options: StoreOptions): Store {
  if (options.databaseUrl) {
    installPgParsers();
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      // A connection that cannot be had in this time fails (a 503 to the request) instead of hanging it.
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      ...(options.preparedStatements === false ? {} : { Client: PreparingClient }),
    });
    // An idle connection the server closed (a restart, a failover, pg_terminate_backend) is dropped by the
    // pool, which then emits 'error': unheard, that would end the process. The next query opens a new
    // connection, and reports the outage itself if the database is still away.
    pool.on('error', () => undefined);
    // pool.end() resolves before its sockets have closed; close() waits for them, so a caller that drops
    // or restarts the database right after never meets a half-closed connection.
    const open = new Set<pg.Client>();
    pool.on('connect', (client) => {
      open.add(client);
      client.on('end', () => open.delete(client));
      client.on('error', () => open.delete(client));
    });
    const db = new Kysely<Database>({ dialect: new LazyBeginPostgresDialect({ pool }, assertNotCopied) });
    // Not a spread of makeStore's object: that would read its `db` getter once and lose the ambient
    // transaction (reads inside an idempotent request would not see what that request wrote).
    const store = makeStore(db, 'postgres');
    const destroy = store.close;
    store.close = async () => {
      await destroy();
      for (let waited = 0; open.size > 0 && waited < 5000; waited += 10) await new Promise((r) => setTimeout(r, 10));
    };
    return store;
  }
  makeFolders(options.dataDir);
  const file = openSqliteFile(options.dataDir);
  file.defaultSafeIntegers(true);
  const db = new Kysely<Database>({ dialect: new CachingSqliteDialect(file) });
  return makeStore(db, 'sqlite', groupCommit(db));
}

/**
 * The embedded database file with the settings every connection to it runs with (the service's, and the
 * benchmark's raw-SQL ceiling, which must write the same rows the same way):
 * - WAL, so readers never wait for the writer, and `synchronous = FULL`, so a commit survives power loss;
 * - the sub-journal in memory: each transaction of a group commit runs in its own savepoint, and SQLite keeps
 *   the page images a savepoint may roll back to in a sub-journal. In a temporary file (SQLite's default past
 *   64 KiB) that was a write system call per page a savepoint first touched, a tenth of a loaded server's
 *   CPU; in memory it is a copy, cut back when the savepoint is released. What a request touches is a few
 *   hundred KiB; a transaction that touches a whole table asks for the file (TxOptions.bulk).
 */
export function openSqliteFile(dataDir: string): SqliteDatabase.Database {
  const file = new SqliteDatabase(sqlitePath(dataDir));
  file.pragma('journal_mode = WAL');
  file.pragma('synchronous = FULL');
  file.pragma(SUB_JOURNAL_IN_MEMORY);
  file.pragma('busy_timeout = 5000');
  file.pragma('foreign_keys = ON');
  return file;
}

const SUB_JOURNAL_IN_MEMORY = 'temp_store = MEMORY';
const SUB_JOURNAL_ON_DISK = 'temp_store = FILE';

/**
 * Runs fn (which begins and ends its own transaction) with SQLite's sub-journal and statement journals in a
 * temporary file, as SQLite keeps them by default: a transaction that deletes a workspace or rewrites a table
 * (a migration) would otherwise hold an image of every page it changed in memory, as much as the table
 * itself. SQLite reads the setting when a transaction begins; the connection is this process's only one,
 * and the caller holds it for the duration (the group commit's queue, or the migration's write lock).
 */
export async function withSubJournalOnDisk<T>(db: Db, fn: () => Promise<T>): Promise<T> {
  await sql.raw(`pragma ${SUB_JOURNAL_ON_DISK}`).execute(db);
  try {
    return await fn();
  } finally {
    await sql.raw(`pragma ${SUB_JOURNAL_IN_MEMORY}`).execute(db);
  }
}

/** Most logical transactions one physical SQLite commit carries. */
const MAX_GROUP = 64;

/** A logical transaction waiting for a group commit. */
interface Pending {
  fn: (trx: Tx) => Promise<unknown>;
  bulk: boolean;
  resolve: (value: any) => void;
  reject: (err: unknown) => void;
}

/** Runs a batch in one commit, each in its savepoint; answers how to settle its callers, called once the
 *  connection is as it was. */
async function runBatch(db: Db, batch: Pending[]): Promise<() => void> {
  const trx = await db.startTransaction().execute();
  const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
  try {
    for (const item of batch) {
      const sp = await trx.savepoint('unit').execute();
      try {
        const value = await item.fn(sp);
        await sp.releaseSavepoint('unit').execute();
        outcomes.push({ ok: true, value });
      } catch (error) {
        await sp.rollbackToSavepoint('unit').execute();
        await sp.releaseSavepoint('unit').execute();
        outcomes.push({ ok: false, error });
      }
    }
    await trx.commit().execute();
  } catch (error) {
    await trx
      .rollback()
      .execute()
      .catch(() => undefined);
    return () => {
      for (const item of batch) item.reject(error);
    };
  }
  return () =>
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
}

/**
 * Group commit for SQLite. With synchronous=FULL every commit waits for an fsync (about 2.5 ms on this
 * class of disk), which caps one writer at a few hundred commits a second. Transactions that arrive
 * while a commit is in progress therefore queue, and the next physical transaction runs them one after
 * another, each inside its own savepoint: a failing one rolls back to its savepoint alone and rejects,
 * the others commit together with one fsync. Every caller's promise settles only after the commit, so
 * nothing is reported done before it is durable. Serial execution inside the batch keeps SQLite's
 * serializable isolation. Work passed here must use only the transaction it is given.
 */
function groupCommit(db: Db): Store['tx'] {
  const queue: Pending[] = [];
  let draining = false;

  async function drain(): Promise<void> {
    draining = true;
    try {
      while (queue.length > 0) {
        // Let requests that are already parsed reach their transaction before the next commit starts,
        // so each fsync carries as many of them as possible.
        await new Promise((resolve) => setImmediate(resolve));
        // A bulk transaction commits alone, its journals on disk; the batch before it stops where it waits.
        const bulkAt = queue.findIndex((item) => item.bulk);
        const batch = queue.splice(0, bulkAt === 0 ? 1 : Math.min(MAX_GROUP, bulkAt < 0 ? queue.length : bulkAt));
        let settle: (() => void) | undefined;
        let failure: unknown;
        try {
          if (bulkAt === 0) await withSubJournalOnDisk(db, async () => void (settle = await runBatch(db, batch)));
          else settle = await runBatch(db, batch);
        } catch (error) {
          // Only the connection throws here (the store closed under the queue): a batch that ran is settled by
          // its outcome, one that could not start fails.
          failure = error;
        }
        if (settle) settle();
        else for (const item of batch) item.reject(failure);
      }
    } finally {
      draining = false;
    }
  }

  return <T>(fn: (trx: Tx) => Promise<T>, options?: TxOptions) =>
    new Promise<T>((resolve, reject) => {
      queue.push({ fn, bulk: options?.bulk === true, resolve, reject });
      if (!draining) void drain();
    });
}

const RETRYABLE_PG_CODES = new Set(['40001', '40P01']);
const MAX_TX_ATTEMPTS = 5;

function retrying(db: Db, engine: Engine): Store['tx'] {
  return async (fn) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await db.transaction().execute(fn);
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (engine === 'postgres' && code && RETRYABLE_PG_CODES.has(code) && attempt < MAX_TX_ATTEMPTS) continue;
        throw err;
      }
    }
  };
}

function makeStore(db: Db, engine: Engine, tx: Store['tx'] = retrying(db, engine)): Store {
  return {
    /** Inside an ambient transaction, reads see what that transaction wrote: they go through it. */
    get db() {
      return joinable() ?? db;
    },
    engine,
    tx: (fn, options) => {
      const outer = joinable();
      const work = (trx: Tx) => withDeferredWrites(trx, fn);
      return outer ? joinAmbient(outer, work) : tx(work, options);
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await db.destroy();
    },
  };
}

/** True when a database error is a unique-constraint violation, on either engine. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
