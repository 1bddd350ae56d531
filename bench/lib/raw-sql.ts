/**
 * The raw-SQL ceiling: the rows of one captured lifecycle (lifecycle-rows.ts) written straight to the
 * database, with no service, no HTTP and no ORM in between. PostgreSQL: one round trip per phase (the
 * phase's statements in one simple-protocol query wrapped in BEGIN/COMMIT) over a pool as large as the
 * server's. SQLite: better-sqlite3 on the same file settings as the service (WAL, synchronous=FULL), the
 * phases of all in-flight lifecycles in one commit, each in its own savepoint, as the service's group
 * commit does.
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

export interface Ceiling {
  /** Runs `count` lifecycles, `inFlight` at a time; resolves when all are written. */
  run(payers: Payer[], seconds: number, inFlight: number): Promise<{ lifecycles: number; seconds: number }>;
  close(): Promise<void>;
}

export function pgCeiling(url: string, lifecycle: Lifecycle, poolSize: number): Ceiling {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
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
            for (const phase of lifecycle.phases) {
              const body = phase.changes.map((c) => statement(fresh(c), pgLiteral).text).join(';\n');
              await pool.query(`begin;\n${body};\ncommit`);
            }
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
  const file = openSqliteFile(dataDir);
  const prepared = new Map<string, SqliteDatabase.Statement>();
  const exec = (change: RowChange) => {
    const { text, params } = statement(change);
    let s = prepared.get(text);
    if (!s) prepared.set(text, (s = file.prepare(text)));
    s.run(...params);
  };
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
