import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';

/** Every SQL statement either driver sends while recording, from the prototypes the store's connections use. */
export interface StatementLog {
  /** Statements sent since the last take, oldest first; starts a fresh record. */
  take(): string[];
}

let sink: ((text: string) => void) | undefined;
let installed = false;

/** Calls `listener` with the text of every statement either driver sends from now on (undefined: stop). */
export function onStatement(listener: ((text: string) => void) | undefined): void {
  install();
  sink = listener;
}

function install(): void {
  if (installed) return;
  installed = true;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
    sink?.(typeof config === 'string' ? config : ((config as { text?: string }).text ?? ''));
    return Reflect.apply(query, this, [config, ...rest]);
  } as typeof query;
  const probe = new SqliteDatabase(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, unknown>;
  probe.close();
  for (const method of ['run', 'all', 'get', 'iterate']) {
    const original = proto[method] as (...args: unknown[]) => unknown;
    proto[method] = function (this: { source: string }, ...args: unknown[]) {
      sink?.(this.source);
      return Reflect.apply(original, this, args);
    };
  }
}

/**
 * Records the statements this process sends from now on (one recorder at a time). On PostgreSQL each is a
 * round trip; on SQLite a call into the library.
 */
export function recordStatements(): StatementLog {
  let log: string[] = [];
  onStatement((text) => log.push(text.replace(/\s+/g, ' ').trim()));
  return {
    take() {
      const taken = log;
      log = [];
      return taken;
    },
  };
}
