// Preset sandbox credentials (SANDBOX_TOKEN_ID/SANDBOX_CLIENT_SECRET): a CI job hard-codes them and the
// embedded sandbox accepts exactly them, from its first request and after every restart.
import { ConfigError } from '../config.ts';
import { scopeNowMs, type Ctx } from '../context.ts';
import { createFirstPlatform, FIRST_PLATFORM, type Credentials } from './platforms.ts';
import { hashSecret, insertToken } from './tokens.ts';
import { PERMISSIONS } from '../domain/permissions.ts';

export type PresetOutcome = 'created-platform' | 'added-token' | 'unchanged';

/**
 * Makes the `default` platform with these sandbox credentials on an empty database; on one whose
 * `default` platform exists, makes its sandbox accept them (a new token, or the named token's secret set
 * to this one). A token id that belongs to another platform, or to production, is refused.
 */
export async function applyPresetCredentials(ctx: Ctx, preset: Credentials): Promise<PresetOutcome> {
  if (await createFirstPlatform(ctx, 'default', preset)) return 'created-platform';
  return ctx.store.tx(async (trx) => {
    const first = await trx
      .selectFrom('server_settings')
      .select('value')
      .where('name', '=', FIRST_PLATFORM)
      .executeTakeFirst();
    const platformId = first?.value ?? '';
    const token = await trx.selectFrom('api_tokens').selectAll().where('id', '=', preset.tokenId).executeTakeFirst();
    if (token && (token.platform_id !== platformId || token.environment !== 'sandbox')) {
      throw new ConfigError(
        `SANDBOX_TOKEN_ID ${preset.tokenId} is a token of another platform or environment in this database; ` +
          'choose another id',
      );
    }
    const secretHash = hashSecret(ctx.dataKey, preset.clientSecret);
    if (token) {
      if (token.secret_hash === secretHash && token.revoked_at === null) return 'unchanged';
      const now = BigInt(scopeNowMs(ctx, { platformId, environment: 'sandbox' }));
      await trx
        .updateTable('api_tokens')
        .set({ secret_hash: secretHash, revoked_at: null, updated_at: now })
        .where('id', '=', preset.tokenId)
        .execute();
      return 'added-token';
    }
    if (!platformId) throw new ConfigError('this database has no `default` platform to give the preset credentials to');
    const scope = { platformId, environment: 'sandbox' as const };
    await insertToken(trx, ctx, scope, 'sandbox preset', PERMISSIONS, preset);
    return 'added-token';
  });
}
