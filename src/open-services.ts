// The services on an up-to-date database, without the HTTP server: what `payouts serve` builds on (app.ts)
// and what the database commands of the command line open, so that they do not load the server.
import { ConfigError, type Config } from './config.ts';
import { systemClock, type Clock } from './domain/clock.ts';
import { makeLogger } from './logger.ts';
import type { Store } from './store/db.ts';
import { openConfiguredStore } from './open-store.ts';
import { migrate } from './store/migrate.ts';
import { openDataKey } from './store/data-key.ts';
import { KeyMismatchError } from './store/key-check.ts';
import { DataDirBusyError, holdShared } from './store/data-dir-lock.ts';
import { makeServices, type Services } from './services/index.ts';

/** Opens the database and brings its schema up to date: what the server and every CLI command start with. */
export async function openServices(
  config: Config,
  clock: Clock = systemClock,
  random: () => number = Math.random,
): Promise<{ store: Store; services: Services }> {
  // The embedded database's folder is in use for as long as this store is open: a restore waits for it.
  let lock: { release(): void } | undefined;
  try {
    lock = config.databaseUrl ? undefined : holdShared(config.dataDir);
  } catch (err) {
    throw err instanceof DataDirBusyError ? new ConfigError(err.message) : err;
  }
  const store = await openConfiguredStore(config);
  const close = store.close;
  store.close = async () => {
    await close();
    lock?.release();
  };
  let dataKey: Buffer;
  try {
    await migrate(store);
    dataKey = await openDataKey(store, config.secretKey, clock.nowMs());
  } catch (err) {
    await store.close();
    throw err instanceof KeyMismatchError ? new ConfigError(err.message) : err;
  }
  return { store, services: makeServices({ store, clock, config, dataKey }, makeLogger(config), random) };
}
