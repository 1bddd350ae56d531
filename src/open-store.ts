// The database the environment names, opened as every process opens it (the server, and each command of the
// command line), apart from the services so that a command that needs only the store loads only the store.
import { ConfigError, type Config } from './config.ts';
import { openStore, type Store } from './store/db.ts';
import { refuseSharedSessions, SharedSessionsError } from './store/pooler-probe.ts';

/**
 * The store DATABASE_URL (or DATA_DIR) names, with the settings of the environment. Prepared statements are
 * refused up front behind a pooler that would break them (store/pooler-probe.ts), as one line naming the
 * setting rather than a stack trace at the first collision.
 */
export async function openConfiguredStore(config: Config): Promise<Store> {
  if (config.databaseUrl && config.databasePreparedStatements) {
    try {
      await refuseSharedSessions(config.databaseUrl);
    } catch (err) {
      throw err instanceof SharedSessionsError ? new ConfigError(err.message) : err;
    }
  }
  return openStore({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    poolSize: config.databasePoolSize,
    preparedStatements: config.databasePreparedStatements,
  });
}
