// The test API: `startSandbox()` runs the sandbox for a test suite, in this process or as a child process
// (`payouts serve`), on a throw-away embedded database by default, and hands back what a test needs: the
// API's base URL, credentials, isolated workspaces, the sandbox clock and a receiver that verifies webhooks.
// Starting goes through the same code as `payouts serve` (serveApp); everything after the start goes over
// HTTP, the way a test suite's own client would, so both modes behave alike.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { basicAuthorization, expectOk, makeApiClient, type ApiClient } from '../cli/api-client.ts';
import { serveApp, listeningUrl } from '../cli/serve-app.ts';
import { loadConfig, VARIABLES, type LogLevel } from '../config.ts';
import { systemClock } from '../domain/clock.ts';
import { parseDuration } from '../domain/durations.ts';
import { API_VERSION } from '../http/http.ts';
import { startChildServer } from './child.ts';
import type { WebhookPublicKeys } from './signatures.ts';
import { startWebhookReceiver, type WebhookInbox, type WebhookReceiver } from './webhooks.ts';

export interface SandboxCredentials {
  tokenId: string;
  clientSecret: string;
}

export interface StartSandboxOptions {
  /** `in-process` (default): this process serves; `child-process`: the package's `payouts serve` does. */
  mode?: 'in-process' | 'child-process';
  /** The embedded database's folder, kept on close. Default: a temporary folder, removed on close. */
  dataDir?: string;
  /** A PostgreSQL database instead of the embedded one (the default workspace is then made over HTTP). */
  databaseUrl?: string;
  /** The server key (hex); needed to reopen a PostgreSQL database set up earlier. Default: a new one. */
  secretKey?: string;
  /** Default 0: a free port. The server listens on 127.0.0.1 only. */
  port?: number;
  /**
   * The port of the webhook receiver on 127.0.0.1, for a CI whose firewall allows named ports only.
   * Default 0: a free one.
   */
  webhookPort?: number;
  /** The default workspace's sandbox credentials (embedded database only). Default: generated. */
  credentials?: SandboxCredentials;
  /** The webhook envelope of the default workspace and of new ones (default: the service's, LEGACY). */
  webhookEnvelope?: WebhookEnvelope;
  /** The server's log level; default `error`. */
  logLevel?: LogLevel;
  /** More server variables (QUOTE_TTL_SECONDS, RATES_FILE, …); the test API's own settings win. */
  env?: Record<string, string>;
  /** How long the child process may take to listen; default 60 000 ms. */
  startTimeoutMs?: number;
}

export type WebhookEnvelope = 'LEGACY' | 'CURRENT';

/** One platform's sandbox, ready for a test: its credentials, clock and webhooks. */
export interface SandboxWorkspace {
  /** The API's base URL, http://127.0.0.1:PORT/2025-10-13: what an official client needs. */
  readonly baseUrl: string;
  readonly credentials: SandboxCredentials & {
    /** `Basic …`, ready for an Authorization header. */ authorization: string;
  };
  /** A small client of the API with these credentials (`call({ method, path, body })`). */
  readonly api: ApiClient;
  /** This workspace's webhooks, verified against its own public keys. */
  readonly webhooks: WebhookInbox;
  /** Moves this workspace's sandbox clock forward (ms, or `30s`, `6m`, `2h`, `1d`) and runs what became due. */
  advanceClock(by: number | string): Promise<{ now: string; offsetMs: number }>;
}

/** A running sandbox, reached over HTTP: workspaces made through it get their webhooks in this process. */
export interface SandboxConnection {
  /** The API's base URL, http://127.0.0.1:PORT/2025-10-13. */
  readonly baseUrl: string;
  /** The server's origin, http://127.0.0.1:PORT (for /healthz, /docs, /dashboard). */
  readonly serverUrl: string;
  /** A new, isolated workspace (a platform of its own) with the same helpers: one HTTP call, no process. */
  newWorkspace(options?: { name?: string; webhookEnvelope?: WebhookEnvelope }): Promise<SandboxWorkspace>;
  /** Stops what this process started (the receiver; for startSandbox, the server too). Safe to call twice. */
  close(): Promise<void>;
}

/** What startSandbox gives: the default workspace, and the server it started. */
export interface Sandbox extends SandboxWorkspace, SandboxConnection {
  readonly mode: 'in-process' | 'child-process';
  /** The folder of the embedded database (and documents); a temporary one is removed on close. */
  readonly dataDir: string;
}

interface Started {
  serverUrl: string;
  stop(): Promise<void>;
}

/** The variables the server starts with: the caller's, then the ones the test API depends on. */
function serverEnv(options: StartSandboxOptions, dataDir: string, preset: SandboxCredentials | undefined) {
  const env: Record<string, string> = {
    ...options.env,
    HOST: '127.0.0.1',
    PORT: String(options.port ?? 0),
    DATA_DIR: dataDir,
    DATABASE_URL: options.databaseUrl ?? '',
    LOG_LEVEL: options.logLevel ?? options.env?.LOG_LEVEL ?? 'error',
    // newWorkspace() is one unauthenticated POST: open, as on any loopback server unless told otherwise.
    SANDBOX_WORKSPACES: 'open',
    // The receiver is on 127.0.0.1: a sandbox held to public webhook addresses could not reach it. (Its twin,
    // ALLOW_PRIVATE_WEBHOOK_URLS, is production's: the test API's workspaces are sandboxes.)
    SANDBOX_WEBHOOKS_PUBLIC_ONLY: 'false',
    SANDBOX_CREDENTIALS_FILE: '',
    SANDBOX_TOKEN_ID: preset?.tokenId ?? '',
    SANDBOX_CLIENT_SECRET: preset?.clientSecret ?? '',
  };
  // On PostgreSQL every process needs the key; a fresh database takes a new one.
  const secretKey = options.secretKey ?? options.env?.SECRET_KEY;
  if (secretKey) env.SECRET_KEY = secretKey;
  else if (options.databaseUrl) env.SECRET_KEY = randomBytes(32).toString('hex');
  return env;
}

/** The child's environment: this process's, less every server variable of ours, plus the server's. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !(name in VARIABLES)));
  return { ...inherited, ...env };
}

async function startInProcess(env: Record<string, string>): Promise<Started> {
  // Credentials are preset or made over HTTP: nothing to show on a terminal.
  const app = await serveApp(loadConfig(env), { isTTY: false, write: () => undefined });
  return { serverUrl: listeningUrl(app), stop: () => app.close() };
}

/** A delay such as 90_000, `30s` or `6m`, in milliseconds. */
function milliseconds(by: number | string): number {
  const ms = typeof by === 'number' ? by : parseDuration(by);
  if (ms === null || !Number.isSafeInteger(ms) || ms <= 0) {
    throw new RangeError(`advanceClock takes a positive number of milliseconds or a duration such as 30s, 6m, 2h, 1d`);
  }
  return ms;
}

/** Points a workspace's webhooks at a new inbox of the receiver, checked with the workspace's public keys. */
async function bindWorkspace(
  baseUrl: string,
  credentials: SandboxCredentials,
  receiver: WebhookReceiver,
  envelope: WebhookEnvelope | undefined,
): Promise<SandboxWorkspace> {
  const api = makeApiClient(baseUrl, credentials, 'the sandbox was closed');
  const call = async (method: string, path: string, body?: unknown) =>
    expectOk({ method, path }, await api.call({ method, path, body })).body;
  // The keys first, so even the TEST webhook the endpoint change sends is checked with them.
  const keys = (await call('GET', '/config')) as WebhookPublicKeys;
  const webhooks = receiver.inbox(keys);
  await call('PATCH', '/config', { webhookEndpoint: webhooks.url, ...(envelope ? { webhookEnvelope: envelope } : {}) });
  return {
    baseUrl,
    credentials: { ...credentials, authorization: basicAuthorization(credentials) },
    api,
    webhooks,
    async advanceClock(by) {
      return (await call('POST', '/sandbox/clock/advance', { milliseconds: milliseconds(by) })) as {
        now: string;
        offsetMs: number;
      };
    },
  };
}

/** Runs `cleanups` newest first, each once; the first failure is thrown after all have run. */
async function unwind(cleanups: Array<() => unknown>): Promise<void> {
  let failure: Error | undefined;
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch (err) {
      failure ??= err instanceof Error ? err : new Error(String(err));
    }
  }
  if (failure) throw failure;
}

/** newWorkspace and close over a server at `serverUrl`, with webhooks to `receiver`; close runs `cleanups`. */
function connection(
  serverUrl: string,
  receiver: WebhookReceiver,
  envelope: WebhookEnvelope | undefined,
  cleanups: Array<() => unknown>,
): SandboxConnection {
  const baseUrl = `${serverUrl}/${API_VERSION}`;
  const anonymous = makeApiClient(baseUrl, undefined, 'the sandbox was closed');
  let closing: Promise<void> | undefined;
  return {
    baseUrl,
    serverUrl,
    async newWorkspace(more = {}) {
      const request = { method: 'POST', path: '/sandbox/workspaces', body: { name: more.name ?? 'test-workspace' } };
      const made = expectOk(request, await anonymous.call(request)).body as SandboxCredentials;
      const credentials = { tokenId: made.tokenId, clientSecret: made.clientSecret };
      return bindWorkspace(baseUrl, credentials, receiver, more.webhookEnvelope ?? envelope);
    },
    close: () => (closing ??= unwind(cleanups)),
  };
}

/**
 * Reaches a sandbox that another process started, such as a Vitest globalSetup whose tests run in workers:
 * `url` is its base URL (or origin). Workspaces made through it send their webhooks to a receiver in this
 * process, so `waitFor` works here; close() stops that receiver and leaves the server running.
 */
export async function connectSandbox(
  url: string,
  options: { webhookEnvelope?: WebhookEnvelope; webhookPort?: number } = {},
): Promise<SandboxConnection> {
  const origin = url
    .trim()
    .replace(/\/+$/, '')
    .replace(new RegExp(`/${API_VERSION}$`), '');
  if (!/^https?:\/\/[^/]+$/.test(origin)) {
    throw new TypeError(`connectSandbox takes the sandbox's base URL, such as http://127.0.0.1:8080/${API_VERSION}`);
  }
  const receiver = await startWebhookReceiver(systemClock, options.webhookPort);
  return connection(origin, receiver, options.webhookEnvelope, [() => receiver.close()]);
}

/** Starts a sandbox for a test suite; see StartSandboxOptions for the defaults. */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<Sandbox> {
  const mode = options.mode ?? 'in-process';
  if (options.databaseUrl && options.credentials) {
    throw new Error('startSandbox: preset credentials are for the embedded database; with databaseUrl, leave them out');
  }
  const cleanups: Array<() => unknown> = [];
  try {
    const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'payouts-sandbox-'));
    if (!options.dataDir) cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const preset = options.databaseUrl
      ? undefined
      : (options.credentials ?? { tokenId: `Token:${randomUUID()}`, clientSecret: randomBytes(24).toString('hex') });
    const receiver = await startWebhookReceiver(systemClock, options.webhookPort);
    cleanups.push(() => receiver.close());
    const env = serverEnv(options, dataDir, preset);
    const started =
      mode === 'child-process'
        ? await startChildServer(childEnv(env), options.startTimeoutMs ?? 60_000)
        : await startInProcess(env);
    cleanups.push(() => started.stop());
    const connected = connection(started.serverUrl, receiver, options.webhookEnvelope, cleanups);
    const workspace = preset
      ? await bindWorkspace(connected.baseUrl, preset, receiver, options.webhookEnvelope)
      : await connected.newWorkspace({ name: 'default' });
    return { ...workspace, ...connected, mode, dataDir };
  } catch (err) {
    await unwind(cleanups).catch(() => undefined);
    throw err;
  }
}
