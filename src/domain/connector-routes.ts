// Which connector serves which production payment: the operator's CONNECTORS_FILE, checked whole at start,
// and the pure rule that picks a route. Secrets are named by reference (a file or a variable) and read by
// config.ts; they are never stored in a row or logged.
import { isBic, isIban } from './account-types.ts';
import { CURRENCY_CODES } from './currencies.ts';

/** The connector every production payment goes to when no route names it: an operator settles it. */
export const MANUAL_CONNECTOR = 'manual';

export type SecretReference = { env: string } | { file: string };

export interface HttpConnectorSettings {
  type: 'http';
  url: string;
  secret: SecretReference;
  timeoutMs: number;
  pollIntervalMs: number;
}

/** A cut-off time of day, UTC: routed payments are gathered into files when it passes. */
export interface CutOff {
  hour: number;
  minute: number;
}

/** Which pain.001 schema the connector's files are held to: ISO's own, or the EU banks' SEPA restriction of it. */
export type Iso20022Variant = 'iso' | 'epc-sct';

/** The ISO 20022 bank-file connector: pain.001 files out to the bank's folder, pain.002/camt.054 back. */
export interface Iso20022ConnectorSettings {
  type: 'iso20022';
  name: string;
  /** The account it pays from. */
  debtor: { name: string; iban: string; bic: string };
  /** Where released pain.001 files go (the bank, or the transfer to it, takes them from here). */
  outbox: string;
  /** Where the bank's answers arrive. */
  inbox: string;
  /** A folder holding the official XSDs every file is held to. */
  schemas: string;
  variant: Iso20022Variant;
  /** Sorted, without repeats; none: files are exported on demand only. */
  cutOffs: CutOff[];
  inboxPollMs: number;
  /** Payments in one pain.001 at most (banks cap a file's size); more make several files. */
  maxPaymentsPerFile?: number | undefined;
}

export type ConnectorSettings = HttpConnectorSettings | Iso20022ConnectorSettings;

export interface ConnectorRoute {
  currency: string;
  platform?: string | undefined;
  connector: string;
}

export interface ConnectorsFile {
  connectors: Record<string, ConnectorSettings>;
  routes: ConnectorRoute[];
}

const NAME = /^[a-z][a-z0-9-]{0,39}$/;
const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_POLL_INTERVAL_MS = 60_000;
const DEFAULT_INBOX_POLL_MS = 5_000;
const CUT_OFF = /^([01][0-9]|2[0-3]):([0-5][0-9])$/;
/** The debtor's name goes in Max140Text (pain.001's Dbtr/Nm and InitgPty/Nm). */
const DEBTOR_NAME_MAX = 140;

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

function whole(where: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max)
    fail(where, `must be a whole number of milliseconds from ${min} to ${max}`);
  return value as number;
}

function folderOf(where: string, value: unknown): string {
  if (typeof value !== 'string' || !value.startsWith('/'))
    fail(where, 'must be an absolute path to a folder (it is created if missing)');
  return value.replace(/(.)\/+$/, '$1');
}

function debtorOf(where: string, value: unknown): Iso20022ConnectorSettings['debtor'] {
  if (!isRecord(value)) fail(where, 'must be {"name", "iban", "bic"}: the account the connector pays from');
  onlyKeys(where, value, ['name', 'iban', 'bic']);
  const { name, iban, bic } = value;
  if (typeof name !== 'string' || !name.trim() || name.length > DEBTOR_NAME_MAX)
    fail(`${where}.name`, `must be the account holder's name, 1 to ${DEBTOR_NAME_MAX} characters`);
  if (!isIban(iban))
    fail(
      `${where}.iban`,
      'must be an IBAN (country, 2 check digits, 11 to 30 letters or digits) with valid check digits',
    );
  if (!isBic(bic)) fail(`${where}.bic`, 'must be a BIC (8 or 11 characters: bank, country, location, optional branch)');
  return { name: name.trim(), iban: (iban as string).toUpperCase(), bic: bic as string };
}

function cutOffsOf(where: string, value: unknown): CutOff[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) fail(where, 'must be a list of UTC times of day, "HH:MM"');
  const cutOffs = value.map((item, i): CutOff => {
    const match = typeof item === 'string' ? CUT_OFF.exec(item) : null;
    if (!match) fail(`${where}[${i}]`, 'must be a UTC time of day, "HH:MM" from 00:00 to 23:59');
    return { hour: Number(match[1]), minute: Number(match[2]) };
  });
  const minutes = cutOffs.map((c) => c.hour * 60 + c.minute);
  if (new Set(minutes).size !== minutes.length) fail(where, 'repeats a time');
  return cutOffs.sort((a, b) => a.hour * 60 + a.minute - (b.hour * 60 + b.minute));
}

function iso20022Of(where: string, name: string, value: Record<string, unknown>): Iso20022ConnectorSettings {
  onlyKeys(where, value, [
    'type',
    'debtor',
    'outbox',
    'inbox',
    'schemas',
    'variant',
    'cutOffs',
    'inboxPollMs',
    'maxPaymentsPerFile',
  ]);
  const perFile = value.maxPaymentsPerFile;
  if (perFile !== undefined && (!Number.isInteger(perFile) || (perFile as number) < 1 || (perFile as number) > 100_000))
    fail(`${where}.maxPaymentsPerFile`, 'must be a whole number from 1 to 100000');
  const variant = value.variant ?? 'iso';
  if (variant !== 'iso' && variant !== 'epc-sct')
    fail(
      `${where}.variant`,
      'must be "iso" (the ISO schema) or "epc-sct" (the EU banks\' SEPA credit transfer schema)',
    );
  const outbox = folderOf(`${where}.outbox`, value.outbox);
  const inbox = folderOf(`${where}.inbox`, value.inbox);
  if (outbox === inbox) fail(`${where}.inbox`, 'must not be the outbox');
  return {
    type: 'iso20022',
    name,
    debtor: debtorOf(`${where}.debtor`, value.debtor),
    outbox,
    inbox,
    schemas: folderOf(`${where}.schemas`, value.schemas),
    variant,
    cutOffs: cutOffsOf(`${where}.cutOffs`, value.cutOffs),
    inboxPollMs: whole(`${where}.inboxPollMs`, value.inboxPollMs, DEFAULT_INBOX_POLL_MS, 100, 86_400_000),
    maxPaymentsPerFile: perFile as number | undefined,
  };
}

function connectorOf(where: string, name: string, value: unknown): ConnectorSettings {
  if (!isRecord(value)) fail(where, 'must be an object');
  if (value.type === 'iso20022') return iso20022Of(where, name, value);
  onlyKeys(where, value, ['type', 'url', 'secret', 'timeoutMs', 'pollIntervalMs']);
  if (value.type !== 'http')
    fail(`${where}.type`, 'must be "http" (the generic HTTP connector) or "iso20022" (bank files)');
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
  const connectors: Record<string, ConnectorSettings> = {};
  for (const [name, value] of Object.entries(raw.connectors)) {
    if (!NAME.test(name) || name === MANUAL_CONNECTOR || name === 'sandbox')
      fail(`connectors.${name}`, 'is not a usable name (lowercase letters, digits and -, not manual or sandbox)');
    connectors[name] = connectorOf(`connectors.${name}`, name, value);
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
  const folders = new Map<string, string>();
  for (const settings of Object.values(connectors)) {
    if (settings.type !== 'iso20022') continue;
    for (const key of ['outbox', 'inbox'] as const) {
      const other = folders.get(settings[key]);
      if (other)
        fail(`connectors.${settings.name}.${key}`, `is already ${other}'s: each connector has folders of its own`);
      folders.set(settings[key], `connectors.${settings.name}.${key}`);
    }
  }
  return { connectors, routes };
}

/** The connector a production payment goes to: a route for its platform first, then one for its currency. */
export function routeFor(routes: readonly ConnectorRoute[], currency: string, platformId: string): string {
  const exact = routes.find((r) => r.currency === currency && r.platform === platformId);
  const anyPlatform = routes.find((r) => r.currency === currency && r.platform === undefined);
  return (exact ?? anyPlatform)?.connector ?? MANUAL_CONNECTOR;
}
