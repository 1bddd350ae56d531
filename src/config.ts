import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { parseRatesFile, type RatesFile } from './domain/rate-sources.ts';

/** Everything the process reads from its environment, parsed and checked once at start. */
export interface Config {
  host: string;
  port: number;
  /** Folder for the embedded database, the server key and uploaded documents. */
  dataDir: string;
  /** PostgreSQL connection string; when absent the embedded SQLite file under dataDir is used. */
  databaseUrl: string | undefined;
  /** Server-side key: peppers API secret hashes and encrypts webhook signing keys at rest. */
  secretKey: Buffer;
  logLevel: string;
  /** How long a quote can be executed after it is created. */
  quoteTtlMs: number;
  /** Largest JSON request body accepted. */
  bodyLimitBytes: number;
  /** Base URL printed in invitation links and similar; derived from host and port when unset. */
  publicUrl: string;
  /** Start background workers (jobs, webhook delivery) inside the server process. */
  runWorkers: boolean;
  /** How often an idle job worker looks for due work. */
  jobPollMs: number;
  /** PostgreSQL connections per server process. */
  databasePoolSize: number;
  /** Let production webhooks reach internal addresses (receivers on the operator's own network). */
  allowPrivateWebhookUrls: boolean;
  /** Production exchange rates and fees, from the operator's RATES_FILE; none means no production quotes. */
  productionRates: RatesFile | undefined;
  /**
   * How long one webhook POST may take, answer body included. Capped well below the job lease (60 s),
   * so another process never claims a delivery that is still in flight.
   */
  webhookTimeoutMs: number;
}

export class ConfigError extends Error {}

function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/**
 * The server key comes from SECRET_KEY (hex or base64, at least 32 bytes) so that several processes
 * on PostgreSQL share it. Without it a key file is created under DATA_DIR on first use, which is what
 * a single machine (the embedded database, or one host against PostgreSQL) needs and nothing more.
 */
function loadSecretKey(env: NodeJS.ProcessEnv, dataDir: string): Buffer {
  const raw = env.SECRET_KEY;
  if (raw) {
    const key = /^[0-9a-fA-F]+$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
    if (key.length < 32) throw new ConfigError('SECRET_KEY must hold at least 32 bytes (64 hex characters)');
    return key;
  }
  const file = join(dataDir, 'secret.key');
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  // 'wx' fails if another process created the file in the meantime; then read theirs.
  try {
    writeFileSync(file, key.toString('hex'), { mode: 0o600, flag: 'wx' });
    return key;
  } catch {
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  }
}

function loadRatesFile(path: string | undefined): RatesFile | undefined {
  if (!path) return undefined;
  try {
    return parseRatesFile(JSON.parse(readFileSync(path, 'utf8')));
  } catch (err) {
    throw new ConfigError(`RATES_FILE ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = resolve(env.DATA_DIR || './data');
  const host = env.HOST || '0.0.0.0';
  const port = intFrom(env, 'PORT', 8080, 0, 65535);
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// connection string');
  }
  return {
    host,
    port,
    dataDir,
    databaseUrl,
    secretKey: loadSecretKey(env, dataDir),
    logLevel: env.LOG_LEVEL || 'info',
    quoteTtlMs: intFrom(env, 'QUOTE_TTL_SECONDS', 300, 10, 3600) * 1000,
    bodyLimitBytes: intFrom(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    publicUrl: env.PUBLIC_URL || `http://${host === '0.0.0.0' ? 'localhost' : host}:${port}`,
    runWorkers: env.RUN_WORKERS !== 'false',
    jobPollMs: intFrom(env, 'JOB_POLL_MS', 250, 10, 60_000),
    databasePoolSize: intFrom(env, 'DATABASE_POOL_SIZE', 10, 1, 200),
    allowPrivateWebhookUrls: env.ALLOW_PRIVATE_WEBHOOK_URLS === 'true',
    productionRates: loadRatesFile(env.RATES_FILE),
    webhookTimeoutMs: intFrom(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 50, 30_000),
  };
}
