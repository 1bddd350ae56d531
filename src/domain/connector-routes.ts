// Which connector serves which production payment: the operator's CONNECTORS_FILE, checked whole at start,
// and the pure rule that picks a route. Secrets are named by reference (a file or a variable) and read by
// config.ts; they are never stored in a row or logged.
import { CURRENCY_CODES } from './currencies.ts';

/** The connector every production payment goes to when no route names it: an operator settles it. */
export const MANUAL_CONNECTOR = 'manual';
/** The connector of every sandbox payment: the simulated rails, whose outcome the account's suffix plans. */
export const SANDBOX_CONNECTOR = 'sandbox';

export type SecretReference = { env: string } | { file: string };

export interface HttpConnectorSettings {
  type: 'http';
  url: string;
  secret: SecretReference;
  timeoutMs: number;
  pollIntervalMs: number;
  /** Calls to the adapter at once from one server process; more wait their turn (never fail). */
  maxInFlight: number;
  /** Whether the adapter serves POST /payouts/{id}/cancel; false: a payment it holds cannot be cancelled. */
  cancel: boolean;
}

export interface ConnectorRoute {
  currency: string;
  platform?: string | undefined;
  connector: string;
}

export interface ConnectorsFile {
  connectors: Record<string, HttpConnectorSettings>;
  routes: ConnectorRoute[];
}

const NAME = /^[a-z][a-z0-9-]{0,39}$/;
const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_POLL_INTERVAL_MS = 60_000;
const DEFAULT_MAX_IN_FLIGHT = 8;

function fail(where: string, problem: string): never {
  throw new Error(`${where} ${problem}`);
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

function onlyKeys(where: string, value: Record<string, unknown>, allowed: string[]): void {
  const extra = Object.keys(value).find((key) => !allowed.includes(key));
  if (extra) fail(`${where}.${extra}`, `is not a setting (${allowed.join(', ')})`);
}

function secretOf(where: string, value: unknown): SecretReference {
  if (!isRecord(value)) fail(where, 'must be {"env": NAME} or {"file": PATH}, never the secret itself');
  onlyKeys(where, value, ['env', 'file']);
  if (typeof value.env === 'string' && value.env && value.file === undefined) return { env: value.env };
  if (typeof value.file === 'string' && value.file && value.env === undefined) return { file: value.file };
  return fail(where, 'must be {"env": NAME} or {"file": PATH}, never the secret itself');
}

function whole(where: string, value: unknown, fallback: number, min: number, max: number, unit = 'milliseconds') {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max)
    fail(where, `must be a whole number of ${unit} from ${min} to ${max}`);
  return value as number;
}

function flag(where: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') fail(where, 'must be true or false');
  return value;
}

function connectorOf(where: string, value: unknown): HttpConnectorSettings {
  if (!isRecord(value)) fail(where, 'must be an object');
  onlyKeys(where, value, ['type', 'url', 'secret', 'timeoutMs', 'pollIntervalMs', 'maxInFlight', 'cancel']);
  if (value.type !== 'http') fail(`${where}.type`, 'must be "http" (the generic HTTP connector)');
  let url: URL | undefined;
  try {
    url = new URL(String(value.url));
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol) || url.username || url.password)
    fail(`${where}.url`, 'must be an http(s) URL without credentials');
  return {
    type: 'http',
    url: url.toString().replace(/\/+$/, ''),
    secret: secretOf(`${where}.secret`, value.secret),
    timeoutMs: whole(`${where}.timeoutMs`, value.timeoutMs, DEFAULT_TIMEOUT_MS, 100, 120_000),
    pollIntervalMs: whole(`${where}.pollIntervalMs`, value.pollIntervalMs, DEFAULT_POLL_INTERVAL_MS, 100, 86_400_000),
    maxInFlight: whole(`${where}.maxInFlight`, value.maxInFlight, DEFAULT_MAX_IN_FLIGHT, 1, 1000, 'calls'),
    cancel: flag(`${where}.cancel`, value.cancel, true),
  };
}

function routeOf(where: string, value: unknown, names: Set<string>): ConnectorRoute {
  if (!isRecord(value)) fail(where, 'must be an object');
  onlyKeys(where, value, ['currency', 'platform', 'connector']);
  if (typeof value.currency !== 'string' || !(CURRENCY_CODES as readonly string[]).includes(value.currency))
    fail(`${where}.currency`, `must be one of ${CURRENCY_CODES.join(', ')}`);
  if (value.platform !== undefined && (typeof value.platform !== 'string' || !value.platform.startsWith('Platform:')))
    fail(`${where}.platform`, 'must be a platform id (Platform:…)');
  if (typeof value.connector !== 'string' || !(names.has(value.connector) || value.connector === MANUAL_CONNECTOR))
    fail(`${where}.connector`, `names no connector of the file (${[...names, MANUAL_CONNECTOR].join(', ')})`);
  return { currency: value.currency, platform: value.platform as string | undefined, connector: value.connector };
}

/** The file's content, checked whole; throws an Error whose message names the first problem and its place. */
export function parseConnectorsFile(raw: unknown): ConnectorsFile {
  if (!isRecord(raw)) fail('the file', 'must be a JSON object with "connectors" and "routes"');
  onlyKeys('the file', raw, ['connectors', 'routes']);
  if (!isRecord(raw.connectors)) fail('connectors', 'must be an object of connectors by name');
  const connectors: Record<string, HttpConnectorSettings> = {};
  for (const [name, value] of Object.entries(raw.connectors)) {
    if (!NAME.test(name) || name === MANUAL_CONNECTOR || name === SANDBOX_CONNECTOR)
      fail(`connectors.${name}`, 'is not a usable name (lowercase letters, digits and -, not manual or sandbox)');
    connectors[name] = connectorOf(`connectors.${name}`, value);
  }
  if (!Array.isArray(raw.routes)) fail('routes', 'must be a list');
  const names = new Set(Object.keys(connectors));
  const routes = raw.routes.map((route, i) => routeOf(`routes[${i}]`, route, names));
  const seen = new Set<string>();
  for (const [i, route] of routes.entries()) {
    const key = `${route.currency} ${route.platform ?? '*'}`;
    if (seen.has(key)) fail(`routes[${i}]`, `repeats the route of ${key}`);
    seen.add(key);
  }
  return { connectors, routes };
}

/** The connector a production payment goes to: a route for its platform first, then one for its currency. */
export function routeFor(routes: readonly ConnectorRoute[], currency: string, platformId: string): string {
  const exact = routes.find((r) => r.currency === currency && r.platform === platformId);
  const anyPlatform = routes.find((r) => r.currency === currency && r.platform === undefined);
  return (exact ?? anyPlatform)?.connector ?? MANUAL_CONNECTOR;
}
