import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';

/** A statement one of the drivers sent: its text and its bound values. */
export interface Statement {
  text: string;
  values: readonly unknown[];
  /** How many rows the database sent back, once it answered (undefined before, or when it failed). */
  rows?: number | undefined;
}

/** Every SQL statement either driver sends while recording, from the prototypes the store's connections use. */
export interface StatementLog {
  /** Statements sent since the last take, oldest first, whitespace folded; starts a fresh record. */
  take(): string[];
  /** The same, with their values. */
  takeWithValues(): Statement[];
}

let sink: ((statement: Statement) => void) | undefined;
let installed = false;

/** Calls `listener` with every statement either driver sends from now on (undefined: stop). */
export function onStatement(listener: ((statement: Statement) => void) | undefined): void {
  install();
  sink = listener;
}

function install(): void {
  if (installed) return;
  installed = true;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
    const values = (Array.isArray(rest[0]) ? rest[0] : (config as { values?: unknown[] }).values) ?? [];
    const statement: Statement = {
      text: typeof config === 'string' ? config : ((config as { text?: string }).text ?? ''),
      values,
    };
    sink?.(statement);
    const answer = Reflect.apply(query, this, [config, ...rest]) as unknown;
    if (answer instanceof Promise)
      answer.then(
        (result: { rows?: unknown[] }) => (statement.rows = result?.rows?.length),
        () => undefined,
      );
    return answer;
  } as typeof query;
  const probe = new SqliteDatabase(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, unknown>;
  probe.close();
  for (const method of ['run', 'all', 'get', 'iterate']) {
    const original = proto[method] as (...args: unknown[]) => unknown;
    proto[method] = function (this: { source: string }, ...args: unknown[]) {
      const statement: Statement = { text: this.source, values: args };
      sink?.(statement);
      const answer = Reflect.apply(original, this, args);
      if (method === 'all') statement.rows = (answer as unknown[]).length;
      else if (method === 'get') statement.rows = answer === undefined ? 0 : 1;
      return answer;
    };
  }
}

/**
 * Records the statements this process sends from now on (one recorder at a time). On PostgreSQL each is a
 * round trip; on SQLite a call into the library.
 */
export function recordStatements(): StatementLog {
  let log: Statement[] = [];
  onStatement((statement) => {
    // The same object the driver's wrapper fills in with `rows` once the database answers.
    statement.text = statement.text.replace(/\s+/g, ' ').trim();
    log.push(statement);
  });
  const takeWithValues = () => {
    const taken = log;
    log = [];
    return taken;
  };
  return { takeWithValues, take: () => takeWithValues().map((s) => s.text) };
}
