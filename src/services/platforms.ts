import { CURRENCY_CODES } from '../domain/currencies.ts';
import { newId } from '../domain/ids.ts';
import { iso } from '../domain/clock.ts';
import { createSystemAccounts } from '../ledger/accounts.ts';
import type { Environment } from '../domain/environments.ts';
import { type Ctx, type Scope, wallNowMs } from '../context.ts';
import type { Tx } from '../store/db.ts';
import { defaultCurrencyConfig } from '../platforms.ts';
import { openInternalAccounts } from './internal-accounts.ts';
import { insertToken } from './tokens.ts';
import { PERMISSIONS } from '../domain/permissions.ts';

import { ENVIRONMENTS } from '../domain/environments.ts';

export interface Credentials {
  tokenId: string;
  clientSecret: string;
}

export interface CreatedPlatform {
  platformId: string;
  sandbox: Credentials;
  production: Credentials;
}

/**
 * A platform comes with both environments fully set up: its configuration, its ledger's system accounts,
 * an internal account per supported currency, and one all-permission token per environment. All of it is
 * one transaction, so a platform is never half made.
 */
export async function createPlatform(ctx: Ctx, name: string, sandbox?: Credentials): Promise<CreatedPlatform> {
  return ctx.store.tx((trx) => insertPlatform(trx, ctx, name, sandbox));
}

/** The server_settings row that records that the first-start platform was made (its value: the platform id). */
export const FIRST_PLATFORM = 'first_platform';

/**
 * The platform a first start makes on an empty database, or undefined when this database has (or had) one.
 * Exactly once, whatever starts at the same time: the claim is a row under a unique name, inserted in the
 * same transaction as the platform, so of two servers starting on one empty database only one makes it.
 */
export async function createFirstPlatform(
  ctx: Ctx,
  name: string,
  sandbox?: Credentials,
): Promise<CreatedPlatform | undefined> {
  return ctx.store.tx(async (trx) => {
    const claim = await trx
      .insertInto('server_settings')
      .values({ name: FIRST_PLATFORM, value: '', created_at: BigInt(wallNowMs(ctx)) })
      .onConflict((oc) => oc.column('name').doNothing())
      .executeTakeFirst();
    if (Number(claim.numInsertedOrUpdatedRows ?? 0n) === 0) return undefined;
    // A database set up before the claim existed already has its platforms: nothing to make.
    if (await trx.selectFrom('platforms').select('id').limit(1).executeTakeFirst()) return undefined;
    const created = await insertPlatform(trx, ctx, name, sandbox);
    await trx
      .updateTable('server_settings')
      .set({ value: created.platformId })
      .where('name', '=', FIRST_PLATFORM)
      .execute();
    return created;
  });
}

/** The id of the platform the first start of this database made; undefined when none did. */
export async function firstPlatformId(ctx: Ctx): Promise<string | undefined> {
  const row = await ctx.store.db
    .selectFrom('server_settings')
    .select('value')
    .where('name', '=', FIRST_PLATFORM)
    .executeTakeFirst();
  return row?.value || undefined;
}

/** `sandbox` fixes the sandbox token's id and secret (preset credentials, new workspaces' are random). */
export async function insertPlatform(trx: Tx, ctx: Ctx, name: string, sandbox?: Credentials): Promise<CreatedPlatform> {
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
    const preset = environment === 'sandbox' ? sandbox : undefined;
    const token = await insertToken(trx, ctx, scope, `${environment} default`, PERMISSIONS, preset);
    credentials[environment] = { tokenId: token.id, clientSecret: token.clientSecret };
  }
  return { platformId, sandbox: credentials.sandbox!, production: credentials.production! };
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

export interface PlatformSummary {
  id: string;
  name: string;
  createdAt: string;
}

/** Every platform, oldest first (the operator's `payouts platforms list`). */
export async function listPlatforms(ctx: Ctx): Promise<PlatformSummary[]> {
  const rows = await ctx.store.db.selectFrom('platforms').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map((row) => ({ id: row.id, name: row.name, createdAt: iso(row.created_at) }));
}
