import { CURRENCY_CODES } from '../domain/currencies.ts';
import { newId } from '../domain/ids.ts';
import { createSystemAccounts } from '../ledger/accounts.ts';
import type { Environment } from '../domain/environments.ts';
import { type Ctx, type Scope, wallNowMs } from '../context.ts';
import { defaultCurrencyConfig } from '../platforms.ts';
import { openInternalAccounts } from './internal-accounts.ts';
import { insertToken, PERMISSIONS } from './tokens.ts';

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
