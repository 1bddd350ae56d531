// Statements of the money path, built and compiled once per shape instead of on every call.
//
// Kysely builds a statement's operation tree and compiles it to SQL text each time it runs. For the money
// path's statements that costs more than SQLite takes to run them (a 40-column INSERT: about 25 µs to build,
// docs/performance.md). A statement defined here is built once with placeholders (slots) in place of its
// values; its SQL text is kept for the shape of those values, and each call only puts its own values where
// the slots were.
//
// The shape of the values is read from them: plain objects' keys, arrays' lengths, and where a value is
// null or undefined (Kysely writes `is null` and leaves undefined columns out, so both change the text).
// Every other value only fills a slot. So a builder may look at which values are there and how many, at the
// engine (each engine keeps its own compiled forms) and at constants of its own module, never at what a value
// is: a slot refuses to be compared, added or printed, and the first run of such a builder fails loudly
// instead of caching one caller's value for everyone.
import type { CompiledQuery, Compilable, QueryCreator, QueryResult } from 'kysely';
import type { Database, Db, Tx } from './schema.ts';
import { engineOf, type Engine } from './dialect.ts';
import { assert, present } from '../domain/assert.ts';
import { RULES } from './rules.ts';

/** Where a value goes in the compiled statement's parameters. */
class Slot {
  constructor(readonly index: number) {}
  [Symbol.toPrimitive](): never {
    throw new Error('a compiled statement read one of its values while being built (see store/compiled.ts)');
  }
}

interface Shaped {
  /** The values' shape, as text. */
  key: string;
  /** Every value that fills a slot, in the order of the walk. */
  leaves: unknown[];
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

/** Walks `values` once: its shape, and the values that fill slots. */
function shapeOf(values: unknown): Shaped {
  const leaves: unknown[] = [];
  const walk = (value: unknown): string => {
    if (value === undefined) return 'u';
    if (value === null) return 'n';
    if (Array.isArray(value)) return `[${value.map(walk).join(',')}]`;
    if (isPlainObject(value)) {
      let key = '{';
      for (const name in value) key += `${name}:${walk(value[name])},`;
      return `${key}}`;
    }
    if (typeof value === 'object' && !(value instanceof Uint8Array)) {
      throw new TypeError(
        `a compiled statement's values are plain data, not ${value.constructor?.name ?? 'an object'}`,
      );
    }
    leaves.push(value);
    return 's';
  };
  return { key: walk(values), leaves };
}

/** `values` with a slot for every value that fills one, numbered in the order shapeOf collects them. */
function slotted<V>(values: V): V {
  let next = 0;
  const walk = (value: unknown): unknown => {
    if (value === undefined || value === null) return value;
    if (Array.isArray(value)) return value.map(walk);
    if (isPlainObject(value)) {
      const copy: Record<string, unknown> = {};
      for (const name in value) copy[name] = walk(value[name]);
      return copy;
    }
    return new Slot(next++);
  };
  return walk(values) as V;
}

/** Shapes kept per statement and engine; past this the statement is probably built from open-ended lists. */
const MAX_SHAPES = 256;

/**
 * Builds the statement from its values, for the engine it will run on. `plan`, when the caller gives one, is
 * plain data that shapes the statement beyond its values' own shape (which tables, which parts): it reaches
 * the builder as itself, never as slots, and is part of the shape.
 */
export type Builder<V, R, P> = (db: QueryCreator<Database>, values: V, engine: Engine, plan: P) => Compilable<R>;

export interface Statement<V, R, P = undefined> {
  /** Its place among the statements this process defined: a plan names it by this, as plain data. */
  number: number;
  /** The builder, for a caller that makes the statement part of a larger one (store/deferred-writes.ts). */
  build: Builder<V, R, P>;
  /** The statement with `values`, compiled for `db`'s engine, for a caller that runs it itself. */
  compile(db: Db | Tx, values: V, ...plan: P extends undefined ? [] : [P]): CompiledQuery<R>;
  /** Runs the statement with `values` on `db` (a transaction or the database). */
  run(db: Db | Tx, values: V, ...plan: P extends undefined ? [] : [P]): Promise<QueryResult<R>>;
  rows(db: Db | Tx, values: V, ...plan: P extends undefined ? [] : [P]): Promise<R[]>;
  first(db: Db | Tx, values: V, ...plan: P extends undefined ? [] : [P]): Promise<R | undefined>;
}

/**
 * The most statements one process may define. The service defines a few dozen, each once, at the top of its
 * module; one defined inside a function would be defined again on every call, compiled again every time
 * and kept here for good. Past this bound, statement() refuses.
 */
export const MAX_STATEMENTS = 1000;

/** Every statement this process defined, by number; it only grows, up to MAX_STATEMENTS. */
const defined: Statement<never, unknown, never>[] = [];

/** The statement this process defined as `number`. */
export function statementNumbered(number: number): Statement<unknown, unknown> {
  return present(defined[number], 'a statement number names a statement this process defined') as never;
}

/**
 * A statement compiled once per shape of its values. `build` makes it from the values it is given, which
 * are slots when it is built; it must be a function of its arguments and of constants only. Defined once, at
 * the top of a module (MAX_STATEMENTS).
 */
export function statement<V, R, P = undefined>(build: Builder<V, R, P>): Statement<V, R, P> {
  assert(
    defined.length < MAX_STATEMENTS,
    `${RULES.statementsBounded}: this process defined MAX_STATEMENTS (${MAX_STATEMENTS}) already (store/compiled.ts)`,
  );
  const compiled = { sqlite: new Map<string, CompiledQuery<R>>(), postgres: new Map<string, CompiledQuery<R>>() };
  const compile = (db: Db | Tx, values: V, ...[plan]: unknown[]): CompiledQuery<R> => {
    const shaped = shapeOf(values);
    const { leaves } = shaped;
    const key = plan === undefined ? shaped.key : `${shaped.key} ${JSON.stringify(plan)}`;
    const engine = engineOf(db);
    const cache = compiled[engine];
    let query = cache.get(key);
    if (!query) {
      query = build(db, slotted(values), engine, plan as P).compile();
      if (cache.size >= MAX_SHAPES) cache.clear();
      cache.set(key, query);
    }
    const parameters = query.parameters.map((p) => (p instanceof Slot ? leaves[p.index] : p));
    return { ...query, parameters };
  };
  const run = (db: Db | Tx, values: V, ...plan: unknown[]): Promise<QueryResult<R>> =>
    db.executeQuery<R>(compile(db, values, ...plan));
  const defines: Statement<V, R, P> = {
    number: defined.length,
    build,
    compile: compile as Statement<V, R, P>['compile'],
    run,
    rows: async (db, values, ...plan) => (await run(db, values, ...plan)).rows,
    first: async (db, values, ...plan) => (await run(db, values, ...plan)).rows[0],
  };
  defined.push(defines as never);
  return defines;
}
