// Where the embedded database lives under DATA_DIR. Apart from store/db.ts so that reading the configuration
// (config.ts) does not load the database drivers.
import { join } from 'node:path';

/** The embedded database's file under DATA_DIR. */
export const SQLITE_FILE = 'payouts.sqlite';

export function sqlitePath(dataDir: string): string {
  return join(dataDir, SQLITE_FILE);
}
