// A platform's stored configuration as every layer reads it: the scope a job or command runs in (with its
// sandbox clock) and the settings in platform_configs. Creating platforms is a service
// (services/platforms.ts); reading them sits here, below services, so jobs and webhooks can too.
import type { Static } from '@sinclair/typebox';
import type { PlatformCurrencyConfig as PlatformCurrencyConfigSchema } from './wire/config.ts';
import type { Ctx, Scope } from './context.ts';
import { iso } from './domain/clock.ts';
import type { Environment } from './domain/environments.ts';
import type { Tx } from './store/db.ts';
import { statement } from './store/compiled.ts';
import type { PlatformConfigsTable, WebhookEnvelope } from './store/schema.ts';

/** Limits and settings of one supported currency (amounts in the smallest unit). */
export type PlatformCurrencyConfig = Static<typeof PlatformCurrencyConfigSchema>;

/** What a new platform, or an older row that stored bare codes, gets for a currency. */
export function defaultCurrencyConfig(currencyCode: string): PlatformCurrencyConfig {
  return {
    currencyCode,
    minAmount: 1,
    maxAmount: 100_000_000_000,
    requiredCounterpartyFields: [],
    enabledTransactionTypes: ['INCOMING', 'OUTGOING'],
  };
}

/** The stored list: PlatformCurrencyConfig objects; rows written before those existed hold bare codes. */
export function parseCurrencies(stored: string): PlatformCurrencyConfig[] {
  const list = JSON.parse(stored) as Array<string | PlatformCurrencyConfig>;
  return list.map((entry) => (typeof entry === 'string' ? defaultCurrencyConfig(entry) : entry));
}

export interface PlatformConfig {
  id: string;
  umaDomain: string;
  webhookEndpoint: string | null;
  /** The codes alone: what opening accounts and checking currencies need. */
  supportedCurrencies: string[];
  /** The same currencies with their limits and settings, as GET /config shows them. */
  currencies: PlatformCurrencyConfig[];
  webhookEnvelope: WebhookEnvelope;
  /** Scope-time ms since the endpoint's deliveries ran out of retries, or null. */
  webhookFailingSinceMs: number | null;
  createdAt: string;
  updatedAt: string;
}

export function toPlatformConfig(row: PlatformConfigsTable): PlatformConfig {
  const currencies = parseCurrencies(row.supported_currencies);
  return {
    id: row.id,
    umaDomain: row.uma_domain,
    webhookEndpoint: row.webhook_endpoint,
    supportedCurrencies: currencies.map((c) => c.currencyCode),
    currencies,
    webhookEnvelope: row.webhook_envelope,
    webhookFailingSinceMs: row.webhook_failing_since === null ? null : Number(row.webhook_failing_since),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/**
 * The platform environment's configuration. Inside a transaction, `share` keeps it from changing until
 * commit on PostgreSQL (PATCH /config takes the row FOR UPDATE), so work that depends on the list of
 * currencies — opening a new customer's accounts — never races a change to it. SQLite's single writer
 * already serializes the two.
 */
export async function getPlatformConfig(ctx: Ctx, scope: Scope, trx?: Tx, share = false): Promise<PlatformConfig> {
  let q = (trx ?? ctx.store.db)
    .selectFrom('platform_configs')
    .selectAll()
    .where('platform_id', '=', scope.platformId)
    .where('environment', '=', scope.environment);
  if (trx && share && ctx.store.engine === 'postgres') q = q.forShare();
  return toPlatformConfig(await q.executeTakeFirstOrThrow());
}

const scopeSettings = statement((db, v: { platformId: string; environment: Environment }) =>
  db
    .selectFrom('platform_configs')
    .select(['clock_offset_ms', 'webhook_endpoint'])
    .where('platform_id', '=', v.platformId)
    .where('environment', '=', v.environment),
);

/** A scope with its current sandbox clock offset, for work that does not come through a request (jobs, CLI). */
export async function loadScope(ctx: Ctx, platformId: string, environment: Environment): Promise<Scope> {
  const row = await scopeSettings.first(ctx.store.db, { platformId, environment });
  return {
    platformId,
    environment,
    clockOffsetMs: Number(row?.clock_offset_ms ?? 0n),
    ...(row ? { hasWebhookEndpoint: row.webhook_endpoint !== null } : {}),
  };
}

/**
 * The platform's first supported currency: what its customers send in when a request names none
 * (invitation amounts, receiver lookups). Customers hold an internal account in every supported currency.
 */
export function primaryCurrency(config: PlatformConfig): string {
  const first = config.supportedCurrencies[0];
  if (first === undefined) throw new Error(`platform configuration ${config.id} lists no supported currency`);
  return first;
}
