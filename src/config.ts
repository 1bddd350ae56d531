// The process's configuration: one schema for every environment variable, checked once at start. A bad
// value stops the process before it does anything, with one line that names the variable, what is wrong
// with the value and how to fix it. Each variable's rule is a JSON schema (TypeBox, checked by Ajv);
// what a schema cannot say (a key's length, a folder that must be writable) is checked right after.
import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, linkSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { makeFolders } from './store/folders.ts';
import {
  parseConnectorsFile,
  type ConnectorRoute,
  type HttpConnectorSettings,
  type Iso20022ConnectorSettings,
  type SecretReference,
} from './domain/connector-routes.ts';
import { requiredSchemas, xmllintVersion } from './rails/iso20022/xsd.ts';
import { hmacKeyOf } from './rails/http/signing.ts';
import { present } from './domain/assert.ts';
import { parseRatesFile, type RatesFile } from './domain/rate-sources.ts';
import { sqlitePath } from './store/paths.ts';
import { OperatorError } from './domain/errors.ts';

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
  /** The file under dataDir the key was read from; undefined when it came from SECRET_KEY. */
  secretKeyFile: string | undefined;
  logLevel: LogLevel;
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
  /** How long an Idempotency-Key and its stored answer are kept (at least 24 hours). */
  idempotencyKeyTtlHours: number;
  /** How long a job that failed for good is kept, with its last error, before upkeep purges it. */
  failedJobTtlHours: number;
  /** PostgreSQL connections per server process. */
  databasePoolSize: number;
  /**
   * Prepare each statement once per PostgreSQL connection. Off behind a pooler in transaction mode
   * (PgBouncer before 1.21), where a connection is shared between clients and a prepared statement is not.
   */
  databasePreparedStatements: boolean;
  /** Let production webhooks reach internal addresses (receivers on the operator's own network). */
  allowPrivateWebhookUrls: boolean;
  /** Hold sandbox webhooks to public addresses too (a hosted sandbox). */
  sandboxWebhooksPublicOnly: boolean;
  /** Rail connectors and the routes of production payments to them, from CONNECTORS_FILE (none: all manual). */
  connectors: LoadedConnectors;
  /** Production exchange rates and fees, from the operator's RATES_FILE; none means no production quotes. */
  productionRates: RatesFile | undefined;
  /**
   * How long one webhook POST may take, answer body included. Capped well below the job lease (60 s),
   * so another process never claims a delivery that is still in flight.
   */
  webhookTimeoutMs: number;
  /** The operator API's bearer token (settlement at scale); unset means that API is not served. */
  operatorToken: string | undefined;
  /** Requests per minute per token, by the token's environment (0: no limit); counted in each process. */
  rateLimitPerMinute: { production: number; sandbox: number };
  /**
   * Sandbox credentials fixed by the operator (SANDBOX_TOKEN_ID and SANDBOX_CLIENT_SECRET, or
   * SANDBOX_CREDENTIALS_FILE): the embedded sandbox's `default` platform accepts exactly these. Never in production.
   */
  sandboxCredentials: { tokenId: string; clientSecret: string } | undefined;
  /**
   * Who may create sandbox workspaces over HTTP: anyone who reaches the port (`open`), a caller with the admin
   * key (`admin`), or nobody (`off`). Open by default only on a loopback address.
   */
  sandboxWorkspaces: { mode: 'open' | 'admin' | 'off'; adminKey: string | undefined };
  /** The sandbox request log: entries kept per workspace, and whether bodies (secrets redacted) are kept too. */
  sandboxRequestLog: { size: number; bodies: boolean };
}

/** A configuration the process must not start with; its message is the one line shown to the operator. */
export class ConfigError extends OperatorError {
  override readonly exitCode = 2;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const ajv = new Ajv({ allErrors: false });
addFormats.default(ajv, ['uri', 'hostname', 'ipv4', 'ipv6']);

const integer = (minimum: number, maximum: number) => Type.Integer({ minimum, maximum });
/**
 * Booleans are spelled `true` or `false`: `FALSE`, `no` or `0` meaning true by accident is how workers run where they
 * must not.
 */
const boolean = Type.Union([Type.Literal('true'), Type.Literal('false')]);

/** One variable: its rule, its default (absent or empty means the default) and the fix a bad value needs. */
interface Variable<S extends TSchema> {
  schema: S;
  fallback?: Static<S>;
  fix: string;
}

const variable = <S extends TSchema>(schema: S, fix: string, fallback?: Static<S>): Variable<S> =>
  fallback === undefined ? { schema, fix } : { schema, fix, fallback };

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const SECRET_PATTERN = '^[A-Za-z0-9._~+/=-]{24,256}$';

export const VARIABLES = {
  PORT: variable(integer(0, 65535), 'a port number from 0 to 65535 (0 picks a free one)', 8080),
  HOST: variable(
    Type.Union([Type.String({ format: 'ipv4' }), Type.String({ format: 'ipv6' }), Type.String({ format: 'hostname' })]),
    'an interface address such as 127.0.0.1, 0.0.0.0 or ::, or a host name',
  ),
  DATA_DIR: variable(Type.String({ minLength: 1 }), 'a writable folder', './data'),
  DATABASE_URL: variable(
    Type.String({ pattern: '^postgres(ql)?://[^\\s]+$' }),
    'a connection string such as postgres://user@host:5432/payouts, or unset it for the embedded database',
  ),
  DATABASE_POOL_SIZE: variable(integer(1, 200), 'a whole number of connections from 1 to 200', 10),
  DATABASE_PREPARED_STATEMENTS: variable(
    boolean,
    '`true` or `false` (`false` behind PgBouncer in transaction mode)',
    'true',
  ),
  SECRET_KEY: variable(
    Type.String({ pattern: '^([0-9a-fA-F]{64,}|[A-Za-z0-9+/]{43,}={0,2})$' }),
    'generate one with `openssl rand -hex 32` (64 hex characters, or base64 of at least 32 bytes)',
  ),
  LOG_LEVEL: variable(Type.Union(LOG_LEVELS.map((l) => Type.Literal(l))), `one of ${LOG_LEVELS.join(', ')}`, 'info'),
  QUOTE_TTL_SECONDS: variable(integer(10, 3600), 'a number of seconds from 10 to 3600', 300),
  IDEMPOTENCY_KEY_TTL_HOURS: variable(integer(24, 24 * 90), 'a number of hours from 24 to 2160', 24),
  FAILED_JOB_TTL_HOURS: variable(integer(1, 24 * 365), 'a number of hours from 1 to 8760', 24 * 7),
  BODY_LIMIT_BYTES: variable(integer(1024, 64 * 1024 * 1024), 'a number of bytes from 1024 to 67108864', 1024 * 1024),
  PUBLIC_URL: variable(
    Type.String({ format: 'uri', pattern: '^https?://[^/]+' }),
    'the absolute http(s) URL clients reach this service at, such as https://payouts.example.com',
  ),
  RUN_WORKERS: variable(boolean, '`true` or `false`', 'true'),
  JOB_POLL_MS: variable(integer(10, 60_000), 'a number of milliseconds from 10 to 60000', 250),
  ALLOW_PRIVATE_WEBHOOK_URLS: variable(boolean, '`true` or `false`', 'false'),
  SANDBOX_WEBHOOKS_PUBLIC_ONLY: variable(boolean, '`true` or `false`', 'false'),
  CONNECTORS_FILE: variable(
    Type.String({ minLength: 1 }),
    'the path of a JSON file of rail connectors and routes (docs/connectors.md)',
  ),
  RATES_FILE: variable(
    Type.String({ minLength: 1 }),
    'the path of a JSON rates file (see docs/api.md, Rates and fees)',
  ),
  WEBHOOK_TIMEOUT_MS: variable(integer(50, 30_000), 'a number of milliseconds from 50 to 30000', 10_000),
  OPERATOR_TOKEN: variable(
    Type.String({ pattern: '^[A-Za-z0-9._~+/=-]{32,256}$' }),
    'a random token of at least 32 characters, such as the output of `openssl rand -hex 32`, or unset it',
  ),
  // Generous in production (a client at 100 requests a second is never slowed); sandbox tokens are not
  // limited unless asked, so a developer's test suite against the embedded sandbox never meets a 429.
  RATE_LIMIT_PER_MINUTE: variable(
    integer(0, 1_000_000),
    'a number of requests per minute per production token from 0 (no limit) to 1000000',
    6000,
  ),
  SANDBOX_RATE_LIMIT_PER_MINUTE: variable(
    integer(0, 1_000_000),
    'a number of requests per minute per sandbox token from 0 (no limit) to 1000000',
    0,
  ),
  // Known credentials for CI: a UUID (with or without `Token:`), and a secret that cannot hold the `:` of Basic auth.
  SANDBOX_TOKEN_ID: variable(
    Type.String({ pattern: `^(Token:)?${UUID}$` }),
    'a UUID such as Token:00000000-0000-4000-8000-000000000001 (the `Token:` prefix is optional)',
  ),
  SANDBOX_CLIENT_SECRET: variable(
    Type.String({ pattern: SECRET_PATTERN }),
    '24 to 256 characters of A-Z, a-z, 0-9 and ._~+/=- (no colon), such as the output of `openssl rand -hex 24`',
  ),
  SANDBOX_CREDENTIALS_FILE: variable(
    Type.String({ minLength: 1 }),
    'the path of a JSON file {"tokenId": "…", "clientSecret": "…"} (or `payouts platforms create --json` output)',
  ),
  SANDBOX_WORKSPACES: variable(
    Type.Union([Type.Literal('open'), Type.Literal('admin'), Type.Literal('off')]),
    '`open`, `admin` (with SANDBOX_ADMIN_KEY) or `off`; unset, it is `open` on a loopback HOST and `admin` otherwise',
  ),
  SANDBOX_ADMIN_KEY: variable(
    Type.String({ pattern: '^[A-Za-z0-9._~+/=-]{32,256}$' }),
    'a random key of at least 32 characters, such as the output of `openssl rand -hex 32`',
  ),
  SANDBOX_REQUEST_LOG_SIZE: variable(integer(10, 100_000), 'a number of entries per workspace from 10 to 100000', 1000),
  SANDBOX_REQUEST_LOG_BODIES: variable(boolean, '`true` or `false`', 'false'),
} as const;

type Name = keyof typeof VARIABLES;
type ValueOf<N extends Name> = Static<(typeof VARIABLES)[N]['schema']>;

function reject(name: string, raw: string, problem: string, fix: string): ConfigError {
  const secret =
    name === 'SECRET_KEY' ||
    name === 'DATABASE_URL' ||
    name === 'OPERATOR_TOKEN' ||
    name === 'SANDBOX_CLIENT_SECRET' ||
    name === 'SANDBOX_ADMIN_KEY';
  const shown = secret ? '(value hidden)' : JSON.stringify(raw);
  return new ConfigError(`${name}=${shown} ${problem}; set it to ${fix}`);
}

const checks = new Map<Name, ValidateFunction>();

/** The variable's checked value, its default when unset or empty, or undefined when it has none. */
function read<N extends Name>(env: NodeJS.ProcessEnv, name: N): ValueOf<N> | undefined {
  const spec: Variable<TSchema> = VARIABLES[name];
  const raw = env[name];
  if (raw === undefined || raw === '') return spec.fallback as ValueOf<N> | undefined;
  const candidate = spec.schema.type === 'integer' && /^-?\d+$/.test(raw.trim()) ? Number(raw) : raw;
  const check = checks.get(name) ?? ajv.compile(spec.schema);
  checks.set(name, check);
  if (!check(candidate)) {
    const problem =
      spec.schema.type === 'integer' && typeof candidate === 'string' ? 'is not a whole number' : 'is not valid';
    throw reject(name, raw, problem, spec.fix);
  }
  return candidate as ValueOf<N>;
}

/** A variable that has a default: always a value. */
function value<N extends Name>(env: NodeJS.ProcessEnv, name: N): ValueOf<N> {
  return present(read(env, name), `${name} has a default`);
}

/** The folder exists as a folder we can write, or can be made. */
function checkDataDir(dataDir: string): void {
  const fix = `a folder this process can write (it is ${dataDir})`;
  if (existsSync(dataDir)) {
    if (!statSync(dataDir).isDirectory()) throw reject('DATA_DIR', dataDir, 'is a file, not a folder', fix);
    try {
      accessSync(dataDir, constants.W_OK);
    } catch {
      throw reject('DATA_DIR', dataDir, 'is not writable by this process', fix);
    }
    return;
  }
  try {
    makeFolders(dataDir);
  } catch (err) {
    throw reject('DATA_DIR', dataDir, `cannot be created (${(err as NodeJS.ErrnoException).code ?? 'error'})`, fix);
  }
}

export function decodeSecretKey(raw: string): Buffer | undefined {
  if (/^[0-9a-fA-F]+$/.test(raw)) return raw.length % 2 === 0 ? Buffer.from(raw, 'hex') : undefined;
  const key = Buffer.from(raw, 'base64');
  // Node's base64 decoder skips what it cannot read; only a value that round-trips was base64.
  return key.toString('base64').replace(/=+$/, '') === raw.replace(/=+$/, '') ? key : undefined;
}

/**
 * The server key comes from SECRET_KEY (hex or base64, at least 32 bytes), which every process sharing
 * a PostgreSQL database must be given. Only the embedded database may do without: a key file is created
 * under DATA_DIR on first use, which is what one machine needs and nothing more.
 */
function loadSecretKey(env: NodeJS.ProcessEnv, dataDir: string, databaseUrl: string | undefined): Buffer {
  const raw = read(env, 'SECRET_KEY');
  const fix = VARIABLES.SECRET_KEY.fix;
  if (raw !== undefined) {
    const key = decodeSecretKey(raw);
    if (!key) throw reject('SECRET_KEY', raw, 'is neither hex nor base64', fix);
    if (key.length < 32) throw reject('SECRET_KEY', raw, `holds ${key.length} bytes, fewer than 32`, fix);
    return key;
  }
  if (databaseUrl) {
    throw new ConfigError(
      `SECRET_KEY is not set, and DATABASE_URL is: every process on a shared database needs the same key; set ` +
        `it to ${fix}`,
    );
  }
  const file = secretKeyPath(dataDir);
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  const key = randomBytes(32);
  // Written whole under a name of its own, then linked into place: the link fails if another process
  // started at the same time got there first, and then its key (never a half-written file) is the key.
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(draft, key.toString('hex'), { mode: 0o600, flag: 'wx' });
  try {
    linkSync(draft, file);
    return key;
  } catch {
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  } finally {
    rmSync(draft, { force: true });
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

/** A connector of CONNECTORS_FILE with its secret read (from its file or variable), ready to use. */
export interface LoadedConnector extends HttpConnectorSettings {
  name: string;
  /** The HMAC key of its `whsec_` secret; never logged, never stored. */
  key: Buffer;
}

export interface LoadedConnectors {
  /** The HTTP connectors, by name. */
  byName: Record<string, LoadedConnector>;
  /** The ISO 20022 bank-file connectors, by name (their folders made and checked at start). */
  banks: Record<string, Iso20022ConnectorSettings>;
  routes: ConnectorRoute[];
}

function readSecret(env: NodeJS.ProcessEnv, where: string, reference: SecretReference): Buffer {
  let secret: string | undefined;
  if ('env' in reference) {
    secret = env[reference.env];
    if (!secret) throw new Error(`${where}: the variable ${reference.env} is not set`);
  } else {
    try {
      secret = readFileSync(reference.file, 'utf8').trim();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new Error(`${where}: the file ${reference.file} cannot be read (${code})`, { cause: err });
    }
  }
  const key = hmacKeyOf(secret);
  if (!key) throw new Error(`${where} is not a whsec_ secret of at least 16 bytes (base64 after whsec_)`);
  return key;
}

/** A folder the connector writes in: made if missing, and writable (a file is created in it and removed). */
function writableFolder(where: string, folder: string): void {
  try {
    makeFolders(folder);
    accessSync(folder, constants.W_OK);
    const probe = join(folder, `.probe-${process.pid}-${randomBytes(4).toString('hex')}`);
    writeFileSync(probe, '');
    rmSync(probe);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
    throw new Error(`${where}: the folder ${folder} cannot be created or written (${code})`, { cause: err });
  }
}

/** What an ISO 20022 connector needs of the machine: xmllint, the schemas its files are held to, its folders. */
function checkBankConnector(env: NodeJS.ProcessEnv, settings: Iso20022ConnectorSettings): Iso20022ConnectorSettings {
  const where = `connectors.${settings.name}`;
  if (xmllintVersion(env) === undefined)
    throw new Error(`${where}: xmllint is not found on PATH; install it (Debian: apt-get install libxml2-utils)`);
  for (const name of requiredSchemas(settings.variant)) {
    const file = join(settings.schemas, name);
    try {
      accessSync(file, constants.R_OK);
    } catch {
      throw new Error(`${where}.schemas: ${settings.schemas} holds no readable ${name} (the official XSD)`);
    }
  }
  writableFolder(`${where}.outbox`, settings.outbox);
  writableFolder(`${where}.outbox`, join(settings.outbox, '.tmp'));
  writableFolder(`${where}.inbox`, settings.inbox);
  return settings;
}

/** CONNECTORS_FILE, checked whole and its secrets read: one line naming the first problem otherwise. */
function loadConnectorsFile(env: NodeJS.ProcessEnv, path: string | undefined): LoadedConnectors {
  if (!path) return { byName: {}, banks: {}, routes: [] };
  try {
    const file = parseConnectorsFile(JSON.parse(readFileSync(path, 'utf8')));
    const byName: Record<string, LoadedConnector> = {};
    const banks: Record<string, Iso20022ConnectorSettings> = {};
    for (const [name, settings] of Object.entries(file.connectors)) {
      if (settings.type === 'iso20022') banks[name] = checkBankConnector(env, settings);
      else byName[name] = { ...settings, name, key: readSecret(env, `connectors.${name}.secret`, settings.secret) };
    }
    return { byName, banks, routes: file.routes };
  } catch (err) {
    throw new ConfigError(`CONNECTORS_FILE ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Sandbox credentials from SANDBOX_TOKEN_ID/SANDBOX_CLIENT_SECRET or SANDBOX_CREDENTIALS_FILE, checked, or
 * undefined when none is set. The server presets them (below); the CLI's API commands call with them.
 */
export function sandboxCredentialsOf(env: NodeJS.ProcessEnv): Config['sandboxCredentials'] {
  const file = read(env, 'SANDBOX_CREDENTIALS_FILE');
  let tokenId = read(env, 'SANDBOX_TOKEN_ID');
  let clientSecret = read(env, 'SANDBOX_CLIENT_SECRET');
  if (file !== undefined) {
    if (tokenId !== undefined || clientSecret !== undefined) {
      throw new ConfigError(
        'SANDBOX_CREDENTIALS_FILE and SANDBOX_TOKEN_ID/SANDBOX_CLIENT_SECRET are both set; keep one',
      );
    }
    ({ tokenId, clientSecret } = readCredentialsFile(file));
  }
  if (tokenId === undefined && clientSecret === undefined) return undefined;
  if (tokenId === undefined || clientSecret === undefined) {
    const missing = tokenId === undefined ? 'SANDBOX_TOKEN_ID' : 'SANDBOX_CLIENT_SECRET';
    throw new ConfigError(
      `${missing} is not set: preset sandbox credentials need both SANDBOX_TOKEN_ID and SANDBOX_CLIENT_SECRET`,
    );
  }
  const uuid = tokenId.replace(/^Token:/, '').toLowerCase();
  return { tokenId: `Token:${uuid}`, clientSecret };
}

/** The preset sandbox credentials, from the two variables or the file; the embedded database only. */
function loadSandboxCredentials(env: NodeJS.ProcessEnv, databaseUrl: string | undefined): Config['sandboxCredentials'] {
  const preset = sandboxCredentialsOf(env);
  if (preset && databaseUrl) {
    throw new ConfigError(
      'preset sandbox credentials (SANDBOX_TOKEN_ID, SANDBOX_CLIENT_SECRET, SANDBOX_CREDENTIALS_FILE) are for the ' +
        'embedded sandbox only, and DATABASE_URL is set: unset them, and create tokens with `payouts tokens create`',
    );
  }
  return preset;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

function loadWorkspaces(env: NodeJS.ProcessEnv, host: string): Config['sandboxWorkspaces'] {
  const adminKey = read(env, 'SANDBOX_ADMIN_KEY');
  const mode = read(env, 'SANDBOX_WORKSPACES') ?? (LOOPBACK.test(host) ? 'open' : 'admin');
  if (mode === 'admin' && adminKey === undefined && env.SANDBOX_WORKSPACES === 'admin') {
    throw new ConfigError(
      `SANDBOX_WORKSPACES=admin needs SANDBOX_ADMIN_KEY; set it to ${VARIABLES.SANDBOX_ADMIN_KEY.fix}`,
    );
  }
  return { mode, adminKey };
}

/** A credentials file's two values, each checked by its variable's rule. */
function readCredentialsFile(path: string): { tokenId: string | undefined; clientSecret: string | undefined } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(`SANDBOX_CREDENTIALS_FILE ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const record = (parsed ?? {}) as { tokenId?: unknown; clientSecret?: unknown; sandbox?: unknown };
  const found = (record.sandbox ?? record) as { tokenId?: unknown; clientSecret?: unknown };
  if (typeof found.tokenId !== 'string' || typeof found.clientSecret !== 'string') {
    throw new ConfigError(
      `SANDBOX_CREDENTIALS_FILE ${path} holds no "tokenId" and "clientSecret" strings; set it to ` +
        VARIABLES.SANDBOX_CREDENTIALS_FILE.fix,
    );
  }
  return {
    tokenId: read({ SANDBOX_TOKEN_ID: found.tokenId }, 'SANDBOX_TOKEN_ID'),
    clientSecret: read({ SANDBOX_CLIENT_SECRET: found.clientSecret }, 'SANDBOX_CLIENT_SECRET'),
  };
}

/** Where the generated server key lives when SECRET_KEY is unset (embedded database only). */
export function secretKeyPath(dataDir: string): string {
  return join(dataDir, 'secret.key');
}

export interface LoadOptions {
  /**
   * The command works on the server's existing database: with the embedded one, no database file at
   * DATA_DIR is an error that names the path, and nothing (folder, key, database) is created. Only the
   * commands that set a database up (serve, migrate, restore) may create one.
   */
  existingDatabase?: boolean;
}

/** The embedded database file must already exist (see LoadOptions.existingDatabase). */
function requireDatabaseFile(dataDir: string): void {
  const file = sqlitePath(dataDir);
  if (existsSync(file)) return;
  throw new ConfigError(
    `no database at ${file}: this command works on the server's database and does not create one; ` +
      `run it with the server's DATA_DIR (or DATABASE_URL), or set a database up there with \`payouts migrate\``,
  );
}

/** Which database a command used, for the operator: the SQLite file, or PostgreSQL's host, port and name. */
export function databaseLabel(config: Pick<Config, 'dataDir' | 'databaseUrl'>): string {
  if (!config.databaseUrl) return `SQLite ${sqlitePath(config.dataDir)}`;
  const url = new URL(config.databaseUrl);
  return `PostgreSQL ${url.hostname}:${url.port || '5432'}${url.pathname}`;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, options: LoadOptions = {}): Config {
  const port = value(env, 'PORT');
  const dataDir = resolve(value(env, 'DATA_DIR'));
  const databaseUrl = read(env, 'DATABASE_URL');
  // The embedded sandbox is one developer's: only this machine reaches it unless HOST says otherwise.
  const host = read(env, 'HOST') ?? (databaseUrl ? '0.0.0.0' : '127.0.0.1');
  if (options.existingDatabase && !databaseUrl) requireDatabaseFile(dataDir);
  checkDataDir(dataDir);
  const localHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  const secretKey = loadSecretKey(env, dataDir, databaseUrl);
  return {
    host,
    port,
    dataDir,
    databaseUrl,
    secretKey,
    secretKeyFile: read(env, 'SECRET_KEY') === undefined ? secretKeyPath(dataDir) : undefined,
    logLevel: value(env, 'LOG_LEVEL'),
    quoteTtlMs: value(env, 'QUOTE_TTL_SECONDS') * 1000,
    bodyLimitBytes: value(env, 'BODY_LIMIT_BYTES'),
    publicUrl: (read(env, 'PUBLIC_URL') ?? `http://${localHost}:${port}`).replace(/\/+$/, ''),
    runWorkers: value(env, 'RUN_WORKERS') === 'true',
    jobPollMs: value(env, 'JOB_POLL_MS'),
    idempotencyKeyTtlHours: value(env, 'IDEMPOTENCY_KEY_TTL_HOURS'),
    failedJobTtlHours: value(env, 'FAILED_JOB_TTL_HOURS'),
    databasePoolSize: value(env, 'DATABASE_POOL_SIZE'),
    databasePreparedStatements: value(env, 'DATABASE_PREPARED_STATEMENTS') === 'true',
    allowPrivateWebhookUrls: value(env, 'ALLOW_PRIVATE_WEBHOOK_URLS') === 'true',
    sandboxWebhooksPublicOnly: value(env, 'SANDBOX_WEBHOOKS_PUBLIC_ONLY') === 'true',
    productionRates: loadRatesFile(read(env, 'RATES_FILE')),
    connectors: loadConnectorsFile(env, read(env, 'CONNECTORS_FILE')),
    webhookTimeoutMs: value(env, 'WEBHOOK_TIMEOUT_MS'),
    operatorToken: read(env, 'OPERATOR_TOKEN'),
    rateLimitPerMinute: {
      production: value(env, 'RATE_LIMIT_PER_MINUTE'),
      sandbox: value(env, 'SANDBOX_RATE_LIMIT_PER_MINUTE'),
    },
    sandboxCredentials: loadSandboxCredentials(env, databaseUrl),
    sandboxWorkspaces: loadWorkspaces(env, host),
    sandboxRequestLog: {
      size: value(env, 'SANDBOX_REQUEST_LOG_SIZE'),
      bodies: value(env, 'SANDBOX_REQUEST_LOG_BODIES') === 'true',
    },
  };
}
