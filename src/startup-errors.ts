// What an operator reads when the process cannot start: one line naming what failed, on what, and what to
// do, instead of a stack trace. Errors this file does not recognise are left to the caller.
import type { Config } from './config.ts';
import { UNREACHABLE_CODES } from './store/unavailable.ts';

type Failure = NodeJS.ErrnoException & { address?: string; port?: number; hostname?: string };

/** Host, port and database name of DATABASE_URL, never its user or password. */
function databaseAt(databaseUrl: string | undefined): string {
  if (!databaseUrl) return 'the embedded database';
  const url = new URL(databaseUrl);
  return `${url.hostname}:${url.port || '5432'}${url.pathname}`;
}

export function describeStartupError(
  err: unknown,
  config: Pick<Config, 'host' | 'port' | 'databaseUrl'>,
): string | undefined {
  const e = err as Failure;
  const database = databaseAt(config.databaseUrl);
  switch (e?.code) {
    case 'EADDRINUSE':
      return (
        `port ${e.port ?? config.port} on ${e.address ?? config.host} is already in use: ` +
        'stop the process that holds it, or set PORT to another port'
      );
    case 'EADDRNOTAVAIL':
      return `HOST ${config.host} is not an address of this machine: set HOST to one of its addresses, 0.0.0.0 or ::`;
    case 'EACCES':
      return `this process may not listen on port ${config.port}: set PORT to 1024 or above, or grant the permission`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return e.hostname === config.host
        ? `HOST ${config.host} does not resolve to an address: set HOST to an address or a resolvable name`
        : `the database host in DATABASE_URL (${database}) does not resolve: check the host name`;
    case '3D000':
      return `the database ${database} does not exist: create it, or point DATABASE_URL at one that does`;
    case '28P01':
    case '28000':
      return `the database at ${database} refused the credentials in DATABASE_URL: check the user and password`;
    case '42P05': // a prepared statement of that name already exists on the session
    case '26000': // the prepared statement named is not on the session
      return (
        `the database at ${database} shares its sessions between connections (a pooler in transaction mode), ` +
        'where prepared statements break: set DATABASE_PREPARED_STATEMENTS=false'
      );
    default:
      // The same network failures that make a running service answer 503 (store/unavailable.ts).
      return e?.code && UNREACHABLE_CODES.has(e.code)
        ? `cannot reach the database at ${database} (${e.code}): check DATABASE_URL and that PostgreSQL is running`
        : undefined;
  }
}
