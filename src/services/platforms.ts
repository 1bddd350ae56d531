import type { Static } from '@sinclair/typebox';
import { iso } from '../domain/clock.ts';
import type { PlatformCurrencyConfig as PlatformCurrencyConfigSchema } from '../http/schemas/config.ts';
import { CURRENCY_CODES } from '../domain/currencies.ts';
import { newId } from '../domain/ids.ts';
import { createSystemAccounts } from '../ledger/accounts.ts';
import type { Tx } from '../store/db.ts';
import type { Environment, PlatformConfigsTable, WebhookEnvelope } from '../store/schema.ts';
import { type Ctx, type Scope, wallNowMs } from '../context.ts';
import { openInternalAccounts } from './internal-accounts.ts';
import { insertToken, PERMISSIONS } from './tokens.ts';

export const ENVIRONMENTS: readonly Environment[] = ['sandbox', 'production'];

export interface Credentials {
  tokenId: string;
  clientSecret: string;
}

export interface CreatedPlatform {
  platformId: string;
  sandbox: Credentials;
  production: Credentials;
}

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
 * A platform comes with both environments fully set up: its configuration, its ledger's system accounts,
 * an internal account per supported currency, and one all-permission token per environment. All of it is
 * one transaction, so a platform is never half made.
 */
export async function createPlatform(ctx: Ctx, name: string): Promise<CreatedPlatform> {
  return ctx.store.tx(async (trx) => {
    const nowMs = wallNowMs(ctx);
    const now = BigInt(nowMs);
    const platformId = newId('Platform');
    await trx.insertInto('platforms').values({ id: platformId, name, created_at: now }).execute();
    const credentials: Partial<Record<Environment, Credentials>> = {};
    for (const environment of ENVIRONMENTS) {
      const scope: Scope = { platformId, environment };
      const slug = platformId.slice(-12);
      await trx
        .insertInto('platform_configs')
        .values({
          id: newId('PlatformConfig'),
          platform_id: platformId,
          environment,
          uma_domain: environment === 'sandbox' ? `${slug}.sandbox.uma.localhost` : `${slug}.uma.localhost`,
          webhook_endpoint: null,
          supported_currencies: JSON.stringify(CURRENCY_CODES.map(defaultCurrencyConfig)),
          clock_offset_ms: 0n,
          webhook_envelope: 'LEGACY',
          webhook_failing_since: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await createSystemAccounts(trx, scope, nowMs);
      await openInternalAccounts(trx, scope, null, CURRENCY_CODES, nowMs);
      const token = await insertToken(trx, ctx, scope, `${environment} default`, PERMISSIONS);
      credentials[environment] = { tokenId: token.id, clientSecret: token.clientSecret };
    }
    return { platformId, sandbox: credentials.sandbox!, production: credentials.production! };
  });
}

export async function platformExists(ctx: Ctx, platformId: string): Promise<boolean> {
  const row = await ctx.store.db.selectFrom('platforms').select('id').where('id', '=', platformId).executeTakeFirst();
  return row !== undefined;
}

export async function countPlatforms(ctx: Ctx): Promise<number> {
  const row = await ctx.store.db
    .selectFrom('platforms')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
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

/** A scope with its current sandbox clock offset, for work that does not come through a request (jobs, CLI). */
export async function loadScope(ctx: Ctx, platformId: string, environment: Environment): Promise<Scope> {
  const row = await ctx.store.db
    .selectFrom('platform_configs')
    .select(['clock_offset_ms', 'webhook_endpoint'])
    .where('platform_id', '=', platformId)
    .where('environment', '=', environment)
    .executeTakeFirst();
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
