// The commands that drive a running sandbox over its HTTP API (trigger, fixtures, logs tail) share this
// client: one set of options, one way to find the server and the credentials, one way to report a refusal.
// The credentials: the flags, else the variables, else the file a local server's first start wrote.
// They read no database and no server configuration, so they work from any folder and against any host.
import { API_VERSION } from '../http/http.ts';
import { stringOption, type CliInput, type CliOption } from './command.ts';
import { OperatorError } from '../domain/errors.ts';
import { credentialsFilePath, readCredentialsFile } from './credentials-file.ts';

/** A server on this machine (URL host names: IPv6 in brackets). */
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/;

export const API_OPTIONS: readonly CliOption[] = [
  {
    flags: '--url <url>',
    description: 'the running server (default PAYOUTS_URL, else http://127.0.0.1:PORT with PORT 8080 when unset)',
  },
  {
    flags: '--token-id <id>',
    description:
      'sandbox token id (default SANDBOX_TOKEN_ID or SANDBOX_CREDENTIALS_FILE, else, for a server on this machine, ' +
      'DATA_DIR/default-platform-credentials.txt)',
  },
  { flags: '--client-secret <secret>', description: 'its secret (default SANDBOX_CLIENT_SECRET)' },
];

export interface ApiAnswer {
  status: number;
  /** The parsed JSON body, or undefined for an empty one. */
  body: unknown;
  headers: Headers;
}

export interface ApiRequest {
  method: string;
  /** Under the API's base path: '/customers', '/sandbox/trigger?x=1'. */
  path: string;
  body?: unknown;
  idempotencyKey?: string;
  /** More request headers (x-sandbox-admin-key for a workspace). */
  headers?: Record<string, string>;
}

export interface ApiClient {
  /** The API's base URL: http://127.0.0.1:8080/2025-10-13. */
  readonly baseUrl: string;
  call(request: ApiRequest): Promise<ApiAnswer>;
}

/** Raised when the server cannot be reached: the command says so and exits 1. */
export class ServerUnreachable extends OperatorError {
  override name = 'ServerUnreachable';
}

/** The server refused a request: the command prints the status, the error code and its message, and exits 1. */
export class ApiRefused extends OperatorError {
  override name = 'ApiRefused';
  constructor(
    readonly request: ApiRequest,
    readonly answer: ApiAnswer,
  ) {
    const error = (answer.body ?? {}) as { code?: unknown; message?: unknown; details?: unknown };
    const details = error.details === undefined ? '' : ` ${JSON.stringify(error.details)}`;
    super(
      `${request.method} ${request.path}: ${answer.status} ${String(error.code)}: ${String(error.message)}${details}`,
    );
  }
}

/** The answer when its status is 2xx; ApiRefused otherwise. */
export function expectOk(request: ApiRequest, answer: ApiAnswer): ApiAnswer {
  if (answer.status >= 200 && answer.status < 300) return answer;
  throw new ApiRefused(request, answer);
}

/** The client for a command's options and environment; a usage error when the credentials are missing. */
export async function apiClientOf(input: CliInput, env: NodeJS.ProcessEnv = process.env): Promise<ApiClient> {
  const { baseUrl, credentials } = await apiTargetOf(input, env);
  return makeApiClient(baseUrl, credentials);
}

/** The API's base URL and the sandbox credentials a command's options and environment name (see apiClientOf). */
export async function apiTargetOf(
  input: CliInput,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ baseUrl: string; credentials: { tokenId: string; clientSecret: string } }> {
  const server = (stringOption(input.options, 'url') ?? env.PAYOUTS_URL ?? `http://127.0.0.1:${env.PORT || 8080}`)
    .trim()
    .replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+/.test(server)) input.fail(`--url takes an http(s) address such as http://127.0.0.1:8080`);
  const baseUrl = server.endsWith(`/${API_VERSION}`) ? server : `${server}/${API_VERSION}`;
  const flagId = stringOption(input.options, 'tokenId');
  const flagSecret = stringOption(input.options, 'clientSecret');
  let credentials: { tokenId: string; clientSecret: string } | undefined;
  // The configuration's reader is loaded only by the command that runs, never for its --help.
  const { ConfigError, sandboxCredentialsOf } = await import('../config.ts');
  try {
    credentials = sandboxCredentialsOf({
      ...env,
      ...(flagId !== undefined ? { SANDBOX_TOKEN_ID: flagId, SANDBOX_CREDENTIALS_FILE: undefined } : {}),
      ...(flagSecret !== undefined ? { SANDBOX_CLIENT_SECRET: flagSecret, SANDBOX_CREDENTIALS_FILE: undefined } : {}),
    });
  } catch (err) {
    if (err instanceof ConfigError) input.fail(err.message);
    throw err;
  }
  // Last, what a first start on this machine wrote: only for a server on this machine, whose credentials
  // they are (a remote server never receives the local sandbox's secret).
  const file = credentialsFilePath(env);
  if (!credentials && LOOPBACK.test(new URL(server).hostname)) credentials = readCredentialsFile(file);
  if (!credentials) {
    return input.fail(
      'no credentials: pass --token-id and --client-secret, or set SANDBOX_TOKEN_ID and SANDBOX_CLIENT_SECRET ' +
        `(or SANDBOX_CREDENTIALS_FILE); a local server's first start writes them to ${file}`,
    );
  }
  return { baseUrl, credentials };
}

/** The `Authorization` header value of sandbox credentials (HTTP Basic). */
export function basicAuthorization(credentials: { tokenId: string; clientSecret: string }): string {
  return `Basic ${Buffer.from(`${credentials.tokenId}:${credentials.clientSecret}`).toString('base64')}`;
}

/**
 * A client of the API at `baseUrl` (…/2025-10-13): with credentials, every call carries them; without, it
 * reaches the public routes only. The CLI's API commands and the test API (src/testing/) both call through it.
 */
export function makeApiClient(
  baseUrl: string,
  credentials: { tokenId: string; clientSecret: string } | undefined,
  unreachableHint = 'start one with `payouts serve`',
): ApiClient {
  const authorization = credentials && basicAuthorization(credentials);
  const server = baseUrl.slice(0, baseUrl.length - API_VERSION.length - 1);
  return {
    baseUrl,
    async call({ method, path, body, idempotencyKey, headers: more }) {
      const headers: Record<string, string> = { ...more, accept: 'application/json' };
      if (authorization) headers.authorization = authorization;
      if (body !== undefined) headers['content-type'] = 'application/json';
      if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
      let response: Response;
      try {
        response = await fetch(`${baseUrl}${path}`, {
          method,
          headers,
          body: body === undefined ? null : JSON.stringify(body),
        });
      } catch (err) {
        const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
        throw new ServerUnreachable(`no server answers at ${server} (${cause}): ${unreachableHint}`);
      }
      const text = await response.text();
      return { status: response.status, body: text === '' ? undefined : JSON.parse(text), headers: response.headers };
    },
  };
}
