/**
 * The raw-SQL ceiling: the rows of one captured lifecycle (lifecycle-rows.ts) written straight to the
 * database, with no service, no HTTP and no ORM in between (bench/raw-sql-server.ts puts the same writes
 * behind HTTP). PostgreSQL: one round trip per phase (the phase's statements in one simple-protocol query
 * wrapped in BEGIN/COMMIT) over a pool as large as the server's. SQLite: better-sqlite3 on the same file
 * settings as the service (WAL, synchronous=FULL), the phases of all in-flight lifecycles in one commit, each
 * in its own savepoint, as the service's group commit does.
 */
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { openSqliteFile } from '../../src/store/db.ts';
import type { Lifecycle, RowChange } from './lifecycle-rows.ts';
import { remap } from './lifecycle-rows.ts';
import type { Payer } from './setup.ts';

type Literal = (v: Value) => string;
type Value = RowChange['row'][string] | undefined;

const pgLiteral: Literal = (v) => {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'bigint' || typeof v === 'number') return String(v);
  return `'${v.replaceAll("'", "''")}'`;
};

/** One statement, as text (PostgreSQL) or as text with ? parameters (SQLite). */
function statement(change: RowChange, literal?: Literal): { text: string; params: Value[] } {
  const params: Value[] = [];
  const value = (v: Value) => {
    if (literal) return literal(v);
    params.push(v);
    return '?';
  };
  const { table, row } = change;
  if (change.kind === 'insert') {
    const columns = Object.keys(row);
    return {
      text: `insert into ${table} (${columns.join(', ')}) values (${columns.map((c) => value(row[c])).join(', ')})`,
      params,
    };
  }
  if (typeof row.id !== 'string') throw new Error(`an updated ${table} row has no id`);
  const sets = change.changed.map((c) => {
    const delta = change.deltas[c];
    return delta === undefined ? `${c} = ${value(row[c])}` : `${c} = ${c} + ${value(delta)}`;
  });
  return { text: `update ${table} set ${sets.join(', ')} where id = ${value(row.id)}`, params };
}

/** Writes one phase of one lifecycle (its row changes, already given fresh ids) as one unit. */
export interface PhaseWriter {
  write(changes: RowChange[]): Promise<void>;
}

const pgTransaction = (phases: RowChange[][]) =>
  `begin;\n${phases.flatMap((changes) => changes.map((c) => statement(c, pgLiteral).text)).join(';\n')};\ncommit`;

/** PostgreSQL: the phase's statements as one simple-protocol query between BEGIN and COMMIT, one round trip. */
export function pgPhaseWriter(pool: pg.Pool): PhaseWriter {
  return { write: async (changes) => void (await pool.query(pgTransaction([changes]))) };
}

/** A phase handed to a writer that writes several together, and how to tell its caller the outcome. */
interface Waiting {
  changes: RowChange[];
  resolve(): void;
  reject(err: unknown): void;
}

/** A writer that hands `run` every phase given to it while the event loop was busy, at the loop's next turn. */
function atNextTurn(run: (group: Waiting[]) => void): PhaseWriter {
  let waiting: Waiting[] = [];
  const next = () => {
    const group = waiting;
    waiting = [];
    run(group);
  };
  return {
    write: (changes) =>
      new Promise<void>((resolve, reject) => {
        if (waiting.length === 0) setImmediate(next);
        const fail = (err: unknown) => reject(err instanceof Error ? err : new Error(String(err)));
        waiting.push({ changes, resolve, reject: fail });
      }),
  };
}

/**
 * PostgreSQL, as the service's worker writes its rail steps: the phases waiting at the next turn of the event
 * loop, in groups of up to `groupSize`, each group one transaction in one round trip (one that fails fails its
 * group).
 */
export function pgGroupWriter(pool: pg.Pool, groupSize: number): PhaseWriter {
  return atNextTurn((waiting) => {
    for (let i = 0; i < waiting.length; i += groupSize) {
      const group = waiting.slice(i, i + groupSize);
      pool.query(pgTransaction(group.map((w) => w.changes))).then(
        () => group.forEach((w) => w.resolve()),
        (err: unknown) => group.forEach((w) => w.reject(err)),
      );
    }
  });
}

/** better-sqlite3 on the service's file settings (WAL, synchronous=FULL), each statement prepared once. */
function sqliteFile(dataDir: string) {
  const file = openSqliteFile(dataDir);
  const prepared = new Map<string, SqliteDatabase.Statement>();
  const exec = (change: RowChange) => {
    const { text, params } = statement(change);
    let s = prepared.get(text);
    if (!s) prepared.set(text, (s = file.prepare(text)));
    s.run(...params);
  };
  return { file, exec };
}

/**
 * SQLite, as the service's group commit writes: the phases that arrive while the event loop is busy are
 * written together at its next turn, in one commit, each in its own savepoint (one that fails alone is undone
 * alone and rejected; the rest commit).
 */
export function sqliteGroupWriter(dataDir: string): PhaseWriter & { close(): void } {
  const { file, exec } = sqliteFile(dataDir);
  const writer = atNextTurn((group) => {
    const failures = new Map<Waiting, unknown>();
    file.exec('begin immediate');
    for (const w of group) {
      file.exec('savepoint unit');
      try {
        for (const c of w.changes) exec(c);
      } catch (err) {
        file.exec('rollback to unit');
        failures.set(w, err);
      }
      file.exec('release unit');
    }
    file.exec('commit');
    for (const w of group) {
      if (failures.has(w)) w.reject(failures.get(w));
      else w.resolve();
    }
  });
  return { ...writer, close: () => file.close() };
}

export interface Ceiling {
  /** Runs lifecycles for `seconds`, `inFlight` at a time; resolves when all are written. */
  run(payers: Payer[], seconds: number, inFlight: number): Promise<{ lifecycles: number; seconds: number }>;
  close(): Promise<void>;
}

export function pgCeiling(url: string, lifecycle: Lifecycle, poolSize: number): Ceiling {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  const writer = pgPhaseWriter(pool);
  return {
    async run(payers, seconds, inFlight) {
      const started = performance.now();
      const deadline = started + seconds * 1000;
      let done = 0;
      await Promise.all(
        Array.from({ length: inFlight }, async (_, w) => {
          const payer = payers[w % payers.length]!;
          while (performance.now() < deadline) {
            const fresh = remap(lifecycle, payer);
            for (const phase of lifecycle.phases) await writer.write(phase.changes.map(fresh));
            done++;
          }
        }),
      );
      return { lifecycles: done, seconds: (performance.now() - started) / 1000 };
    },
    close: () => pool.end(),
  };
}

export function sqliteCeiling(dataDir: string, lifecycle: Lifecycle): Ceiling {
  const { file, exec } = sqliteFile(dataDir);
  return {
    async run(payers, seconds, inFlight) {
      const started = performance.now();
      const deadline = started + seconds * 1000;
      let done = 0;
      while (performance.now() < deadline) {
        const batch = Array.from({ length: inFlight }, (_, w) => remap(lifecycle, payers[w % payers.length]!));
        for (const phase of lifecycle.phases) {
          file.exec('begin immediate');
          for (const fresh of batch) {
            file.exec('savepoint unit');
            for (const c of phase.changes) exec(fresh(c));
            file.exec('release unit');
          }
          file.exec('commit');
        }
        done += batch.length;
        // Let timers run between batches, as the server's event loop would.
        await new Promise((r) => setImmediate(r));
      }
      return { lifecycles: done, seconds: (performance.now() - started) / 1000 };
    },
    close: async () => void file.close(),
  };
}
