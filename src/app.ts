import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import { ConfigError, type Config } from './config.ts';
import { systemClock, type Clock } from './domain/clock.ts';
import { buildHttp } from './http/server.ts';
import type { Http } from './http/http.ts';
import { openStore, type Store } from './store/db.ts';
import { migrate } from './store/migrate.ts';
import { openDataKey } from './store/data-key.ts';
import { KeyMismatchError } from './store/key-check.ts';
import { DataDirBusyError, holdShared } from './store/data-dir-lock.ts';
import { makeServices, type Services } from './services/index.ts';

/** Secret-bearing properties, wherever they appear in a logged object up to three levels down. */
const SECRET_KEYS = ['clientSecret', 'secret', 'privateKey', 'password', 'signingSecret'];
/** Header records are logged by Fastify (`req.headers`) and by plugins at trace (multipart's `busboyOptions`). */
const SECRET_HEADERS = ['authorization', 'cookie', '["set-cookie"]', '["proxy-authorization"]'];

/** Every path pino must censor: credentials never reach a log, at any level. */
export const REDACTED_PATHS = [
  ...['', '*.', '*.*.'].flatMap((depth) => SECRET_KEYS.map((key) => `${depth}${key}`)),
  ...['headers', '*.headers', '*.*.headers'].flatMap((at) =>
    SECRET_HEADERS.map((h) => (h.startsWith('[') ? `${at}${h}` : `${at}.${h}`)),
  ),
  // Node's HTTP parser attaches the unparsed bytes, headers and all, to a client error.
  'rawPacket',
  '*.rawPacket',
];

/**
 * JSON lines for a log collector; one readable line per entry when a person watches the terminal. The
 * choice is stdout's: a service manager, a pipe or a file gets JSON.
 */
export function makeLogger(config: Config, terminal = process.stdout.isTTY): Logger {
  const options = {
    level: config.logLevel,
    // Credentials never reach the logs, whatever a serializer or a plugin later decides to include.
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  if (!terminal) return pino(options);
  // In-process and synchronous (no worker thread): a line is on the terminal before the next one is made.
  const stream = pretty({ singleLine: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
  return pino(options, stream);
}

export interface App {
  http: Http;
  store: Store;
  services: Services;
  close(): Promise<void>;
}

export interface AppOptions {
  clock?: Clock;
  /** Random source of the webhook retry jitter (Math.random by default). */
  random?: () => number;
  validateResponses?: boolean;
}

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
  const store = openStore({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    poolSize: config.databasePoolSize,
    preparedStatements: config.databasePreparedStatements,
  });
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

/** Wires services, workers and HTTP on an up-to-date database. Does not listen. */
export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const { store, services } = await openServices(config, options.clock, options.random);
  const http = await buildHttp(services, {
    logger: services.log,
    bodyLimitBytes: config.bodyLimitBytes,
    rateLimits: config.rateLimitPerMinute,
    validateResponses: options.validateResponses ?? false,
    ready: () => store.ping(),
  });
  if (config.runWorkers) services.worker.start();
  let closed = false;
  return {
    http,
    store,
    services,
    async close() {
      if (closed) return;
      closed = true;
      // Stop taking requests, let those in flight finish, stop the workers, then close the database.
      await http.close();
      await services.worker.stop();
      await store.close();
    },
  };
}
