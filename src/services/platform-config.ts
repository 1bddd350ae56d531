import { bindDeps } from './bind.ts';
import type { Static } from '@sinclair/typebox';
import { AppError, invalidInput } from '../domain/errors.ts';
import type { PlatformConfig as PlatformConfigSchema } from '../wire/config.ts';
import { iso } from '../domain/clock.ts';
import type { Tx } from '../store/db.ts';
import type { WebhookEnvelope } from '../store/schema.ts';
import { recordEvent } from '../webhooks/events.ts';
import type { WebhookService } from '../webhooks/service.ts';
import { checkWebhookUrl, publicTargetsOnly } from '../webhooks/url.ts';
import { scopeNowMs, type Ctx, type Scope } from '../context.ts';
import { openInternalAccounts } from './internal-accounts.ts';
import { toPlatformConfig, type PlatformCurrencyConfig } from '../platforms.ts';

/**
 * Adding a currency opens its account for every existing customer inside the PATCH's transaction (all
 * or nothing). Past this many customers that transaction would grow too large, so the PATCH is refused.
 */
export const MAX_CUSTOMERS_FOR_NEW_CURRENCY = 10_000;

const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export interface PlatformConfigUpdate {
  umaDomain?: string | undefined;
  webhookEndpoint?: string | null | undefined;
  supportedCurrencies?: PlatformCurrencyConfig[] | undefined;
  webhookEnvelope?: WebhookEnvelope | undefined;
}

export type PlatformConfigView = Static<typeof PlatformConfigSchema>;

function checkCurrencies(list: PlatformCurrencyConfig[]): void {
  const seen = new Set<string>();
  list.forEach((c, i) => {
    const field = `supportedCurrencies.${i}`;
    if (seen.has(c.currencyCode))
      throw invalidInput(`${field}.currencyCode`, `${c.currencyCode} is listed twice`, 'unique');
    seen.add(c.currencyCode);
    if (c.minAmount > c.maxAmount)
      throw invalidInput(`${field}.minAmount`, `${field}.minAmount must not exceed maxAmount`, 'range');
    if (new Set(c.enabledTransactionTypes).size !== c.enabledTransactionTypes.length) {
      throw invalidInput(
        `${field}.enabledTransactionTypes`,
        `${field}.enabledTransactionTypes lists a type twice`,
        'unique',
      );
    }
  });
}

async function view(
  deps: PlatformConfigDeps,
  scope: Scope,
  row: Parameters<typeof toPlatformConfig>[0],
): Promise<PlatformConfigView> {
  const { webhooks } = deps;
  const config = toPlatformConfig(row);
  return {
    id: config.id,
    umaDomain: config.umaDomain,
    // Left out until one is set: the contract's field is a string, never null.
    ...(config.webhookEndpoint === null ? {} : { webhookEndpoint: config.webhookEndpoint }),
    supportedCurrencies: config.currencies,
    isRegulatedFinancialInstitution: false,
    webhookEnvelope: config.webhookEnvelope,
    ...(await webhooks.publicKeys(scope)),
    webhookEndpointFailingSince: config.webhookFailingSinceMs === null ? null : iso(config.webhookFailingSinceMs),
    createdAt: config.createdAt,
    updatedAt: config.updatedAt,
  };
}

function scoped(deps: PlatformConfigDeps, scope: Scope) {
  const { ctx } = deps;
  const { db } = ctx.store;
  return db
    .selectFrom('platform_configs')
    .selectAll()
    .where('platform_id', '=', scope.platformId)
    .where('environment', '=', scope.environment);
}

async function get(deps: PlatformConfigDeps, scope: Scope): Promise<PlatformConfigView> {
  return view(deps, scope, await scoped(deps, scope).executeTakeFirstOrThrow());
}

/**
 * One transaction: the new settings, the accounts a new currency needs, and (when the endpoint
 * changed to a URL) a TEST event whose delivery job sends it to the new endpoint after commit.
 */
/** Added currencies get an internal account for the platform and for each customer, in the caller's transaction. */
async function openAccountsIn(trx: Tx, scope: Scope, added: string[], now: number): Promise<void> {
  await openInternalAccounts(trx, scope, null, added, now);
  const customers = await trx
    .selectFrom('customers')
    .select('id')
    .where('platform_id', '=', scope.platformId)
    .where('environment', '=', scope.environment)
    .where('is_deleted', '=', 0n)
    .orderBy('id')
    .limit(MAX_CUSTOMERS_FOR_NEW_CURRENCY + 1)
    .execute();
  if (customers.length > MAX_CUSTOMERS_FOR_NEW_CURRENCY) {
    throw new AppError(
      'CONFLICT',
      `Adding a currency opens accounts for every customer, at most ` +
        `${MAX_CUSTOMERS_FOR_NEW_CURRENCY} at once; this platform has more`,
      { field: 'supportedCurrencies' },
    );
  }
  for (const customer of customers) await openInternalAccounts(trx, scope, customer.id, added, now);
}

async function update(
  deps: PlatformConfigDeps,
  scope: Scope,
  input: PlatformConfigUpdate,
): Promise<PlatformConfigView> {
  const { ctx } = deps;
  const umaDomain = input.umaDomain?.toLowerCase();
  if (umaDomain !== undefined && !DOMAIN.test(umaDomain))
    throw invalidInput('umaDomain', 'umaDomain must be a domain name such as pay.example.com', 'domain');
  const endpoint =
    input.webhookEndpoint === undefined || input.webhookEndpoint === null
      ? input.webhookEndpoint
      : checkWebhookUrl(
          input.webhookEndpoint,
          scope.environment,
          'webhookEndpoint',
          publicTargetsOnly(ctx.config, scope.environment),
        );
  if (input.supportedCurrencies) checkCurrencies(input.supportedCurrencies);

  const row = await ctx.store.tx(async (trx) => {
    let current = trx
      .selectFrom('platform_configs')
      .selectAll()
      .where('platform_id', '=', scope.platformId)
      .where('environment', '=', scope.environment);
    // Two PATCHes at once must not both see the old currency list (SQLite's write lock already serializes).
    if (ctx.store.engine === 'postgres') current = current.forUpdate();
    const before = await current.executeTakeFirstOrThrow();
    const now = scopeNowMs(ctx, scope);
    const changes: Partial<typeof before> = {};
    if (umaDomain !== undefined && umaDomain !== before.uma_domain) changes.uma_domain = umaDomain;
    if (input.webhookEnvelope !== undefined && input.webhookEnvelope !== before.webhook_envelope)
      changes.webhook_envelope = input.webhookEnvelope;
    const endpointChanged = endpoint !== undefined && endpoint !== before.webhook_endpoint;
    if (endpointChanged) {
      changes.webhook_endpoint = endpoint;
      // A new endpoint starts with a clean record.
      changes.webhook_failing_since = null;
    }
    if (input.supportedCurrencies) {
      const had = new Set(toPlatformConfig(before).supportedCurrencies);
      const added = input.supportedCurrencies.map((c) => c.currencyCode).filter((code) => !had.has(code));
      const stored = JSON.stringify(input.supportedCurrencies);
      if (stored !== before.supported_currencies) changes.supported_currencies = stored;
      if (added.length > 0) await openAccountsIn(trx, scope, added, now);
      // A removed currency only stops new accounts: existing ones keep their balances and history.
    }
    if (Object.keys(changes).length === 0) return before;
    changes.updated_at = BigInt(now);
    await trx.updateTable('platform_configs').set(changes).where('id', '=', before.id).execute();
    if (endpointChanged && endpoint !== null)
      await recordTestEvent(trx, { ...scope, hasWebhookEndpoint: true }, before.id, now);
    return { ...before, ...changes };
  });
  return view(deps, scope, row);
}

/** The TEST event a new webhook endpoint gets, in the caller's transaction; its object is the config. */
function recordTestEvent(trx: Tx, scope: Scope, configId: string, nowMs: number): Promise<string> {
  return recordEvent(trx, scope, { type: 'TEST', objectId: configId, data: {} }, nowMs);
}

/** Records the TEST event again for the endpoint configured now (the sandbox trigger); answers its config id. */
async function recordTest(deps: PlatformConfigDeps, scope: Scope): Promise<{ configId: string; eventId: string }> {
  const { ctx } = deps;
  return ctx.store.tx(async (trx) => {
    const config = await trx
      .selectFrom('platform_configs')
      .select('id')
      .where('platform_id', '=', scope.platformId)
      .where('environment', '=', scope.environment)
      .executeTakeFirstOrThrow();
    return { configId: config.id, eventId: await recordTestEvent(trx, scope, config.id, scopeNowMs(ctx, scope)) };
  });
}

interface PlatformConfigDeps {
  ctx: Ctx;
  webhooks: WebhookService;
}

export interface PlatformConfigService {
  /** The scope's configuration, with its webhook signing key. */
  get(scope: Scope): Promise<PlatformConfigView>;
  /** Changes the given fields; a new webhook endpoint gets a TEST event. Raises INVALID_INPUT, CONFLICT. */
  update(scope: Scope, input: PlatformConfigUpdate): Promise<PlatformConfigView>;
  /** Records the TEST event again for the endpoint configured now (the sandbox trigger). */
  recordTest(scope: Scope): Promise<{ configId: string; eventId: string }>;
}

export function makePlatformConfigService(ctx: Ctx, webhooks: WebhookService): PlatformConfigService {
  const deps: PlatformConfigDeps = { ctx, webhooks };
  return {
    get: bindDeps(deps, get),
    update: bindDeps(deps, update),
    recordTest: bindDeps(deps, recordTest),
  };
}
