import { bindDeps } from './bind.ts';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError, notFound } from '../domain/errors.ts';
import { iso } from '../domain/clock.ts';
import { hasPrefix, newId } from '../domain/ids.ts';
import type { Db, Tx } from '../store/db.ts';
import { statement } from '../store/compiled.ts';
import type { ApiTokensTable } from '../store/schema.ts';
import { keysetPage, mapPage } from '../store/paging.ts';
import type { Page, PageRequest } from '../domain/paging.ts';
import { scopeNowMs, type Ctx, type Scope } from '../context.ts';
import type { Permission } from '../domain/permissions.ts';

export interface Principal extends Scope {
  tokenId: string;
  permissions: ReadonlySet<Permission>;
}

export interface ApiToken {
  id: string;
  name: string;
  permissions: Permission[];
  clientId: string;
  createdAt: string;
  updatedAt: string;
  clientSecret?: string;
}

/** The username half of the Basic credential: the token id without its `Token:` prefix. */
function clientIdOf(tokenId: string): string {
  return tokenId.slice('Token:'.length);
}

function toApiToken(row: ApiTokensTable): ApiToken {
  return {
    id: row.id,
    name: row.name,
    permissions: row.permissions.split(',') as Permission[],
    clientId: clientIdOf(row.id),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function hashSecret(key: Buffer, secret: string): string {
  return createHmac('sha256', key).update(secret).digest('hex');
}

/**
 * Inserts a token and returns it with its secret, the only time the secret is ever visible. `preset` fixes
 * the id and secret (the embedded sandbox's credentials from SANDBOX_TOKEN_ID/SANDBOX_CLIENT_SECRET).
 */
export async function insertToken(
  trx: Tx | Db,
  ctx: Ctx,
  scope: Scope,
  name: string,
  permissions: readonly Permission[],
  preset?: { tokenId: string; clientSecret: string },
): Promise<ApiToken & { clientSecret: string }> {
  const id = preset?.tokenId ?? newId('Token');
  // 256 bits from the OS CSPRNG; base64url has no ':' so the Basic credential splits unambiguously.
  const clientSecret = preset?.clientSecret ?? randomBytes(32).toString('base64url');
  const now = BigInt(scopeNowMs(ctx, scope));
  const row: ApiTokensTable = {
    id,
    platform_id: scope.platformId,
    environment: scope.environment,
    name,
    permissions: [...new Set(permissions)].join(','),
    secret_hash: hashSecret(ctx.dataKey, clientSecret),
    created_at: now,
    updated_at: now,
    revoked_at: null,
  };
  await trx.insertInto('api_tokens').values(row).execute();
  return { ...toApiToken(row), clientSecret };
}

function scoped(deps: TokenDeps, scope: Scope) {
  const { ctx } = deps;
  const { db } = ctx.store;
  return db
    .selectFrom('api_tokens')
    .where('api_tokens.platform_id', '=', scope.platformId)
    .where('api_tokens.environment', '=', scope.environment)
    .where('api_tokens.revoked_at', 'is', null);
}

/**
 * Resolves a Basic credential. The username may be the token id (`Token:<uuid>`) or its clientId
 * (`<uuid>`); the secret is compared as a keyed hash in constant time. Every failure looks the same.
 */
async function authenticate(deps: TokenDeps, username: string, secret: string): Promise<Principal> {
  const { ctx } = deps;
  const id = hasPrefix(username, 'Token') ? username : `Token:${username}`;
  const row = await lookUp(deps, id);
  const expected = Buffer.from(row?.secret_hash ?? '0'.repeat(64), 'hex');
  const given = Buffer.from(hashSecret(ctx.dataKey, secret), 'hex');
  const matches = timingSafeEqual(expected, given);
  // Built only when thrown: an error captures a stack, a cost every request would otherwise pay.
  if (!row || !matches || row.revoked_at !== null) throw new AppError('UNAUTHORIZED', 'Invalid API credentials');
  return {
    tokenId: row.id,
    platformId: row.platform_id,
    environment: row.environment,
    clockOffsetMs: Number(row.clock_offset_ms ?? 0n),
    hasWebhookEndpoint: row.webhook_endpoint !== null,
    permissions: new Set(row.permissions.split(',') as Permission[]),
  };
}

const tokenById = statement((db, { id }: { id: string }) =>
  db
    .selectFrom('api_tokens')
    .leftJoin('platform_configs', (j) =>
      j
        .onRef('platform_configs.platform_id', '=', 'api_tokens.platform_id')
        .onRef('platform_configs.environment', '=', 'api_tokens.environment'),
    )
    .selectAll('api_tokens')
    .select(['platform_configs.clock_offset_ms', 'platform_configs.webhook_endpoint'])
    .where('api_tokens.id', '=', id),
);

/**
 * The token's row and its platform's settings, read for every request: nothing is cached, so a revoked
 * token or a changed setting is seen at once by every process. Requests that arrive while a lookup of the
 * same token is on its way share it (a busy client's requests come in bursts, and each lookup is a round
 * trip on PostgreSQL): no request is answered on a read sent more than that one round trip before it came.
 */
function lookUp(deps: TokenDeps, id: string): ReturnType<typeof tokenById.first> {
  let lookup = deps.inFlight.get(id);
  if (!lookup) {
    lookup = tokenById.first(deps.ctx.store.db, { id }).finally(() => deps.inFlight.delete(id));
    deps.inFlight.set(id, lookup);
  }
  return lookup;
}

/** A new token with its secret, which is shown this once and stored only as a hash. */
export type NewToken = ApiToken & { clientSecret: string };

function create(deps: TokenDeps, scope: Scope, name: string, permissions: readonly Permission[]): Promise<NewToken> {
  const { ctx } = deps;
  const { db } = ctx.store;
  return insertToken(db, ctx, scope, name, permissions);
}

export interface TokenFilters {
  name?: string | undefined;
  createdAfter?: number | undefined;
  createdBefore?: number | undefined;
  updatedAfter?: number | undefined;
  updatedBefore?: number | undefined;
}

async function list(deps: TokenDeps, scope: Scope, filters: TokenFilters, page: PageRequest): Promise<Page<ApiToken>> {
  let q = scoped(deps, scope);
  if (filters.name !== undefined) q = q.where('api_tokens.name', '=', filters.name);
  if (filters.createdAfter !== undefined) q = q.where('api_tokens.created_at', '>=', BigInt(filters.createdAfter));
  if (filters.createdBefore !== undefined) q = q.where('api_tokens.created_at', '<=', BigInt(filters.createdBefore));
  if (filters.updatedAfter !== undefined) q = q.where('api_tokens.updated_at', '>=', BigInt(filters.updatedAfter));
  if (filters.updatedBefore !== undefined) q = q.where('api_tokens.updated_at', '<=', BigInt(filters.updatedBefore));
  return mapPage(await keysetPage<ApiTokensTable>(q, 'api_tokens', page), toApiToken);
}

async function get(deps: TokenDeps, scope: Scope, tokenId: string): Promise<ApiToken> {
  const row = await scoped(deps, scope).selectAll().where('api_tokens.id', '=', tokenId).executeTakeFirst();
  if (!row) throw notFound('Token', tokenId, 'TOKEN_NOT_FOUND');
  return toApiToken(row);
}

/**
 * Revokes the token; it stops authenticating at once. A token cannot revoke itself (it would lock the caller out).
 */
async function revoke(deps: TokenDeps, scope: Scope, tokenId: string, callerTokenId: string): Promise<void> {
  const { ctx } = deps;
  const { db } = ctx.store;
  if (tokenId === callerTokenId) {
    throw new AppError('INVALID_INPUT', 'A token cannot delete itself; use another MANAGE token', {
      field: 'tokenId',
    });
  }
  const now = BigInt(scopeNowMs(ctx, scope));
  const result = await db
    .updateTable('api_tokens')
    .set({ revoked_at: now, updated_at: now })
    .where('id', '=', tokenId)
    .where('platform_id', '=', scope.platformId)
    .where('environment', '=', scope.environment)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (result.numUpdatedRows !== 1n) throw notFound('Token', tokenId, 'TOKEN_NOT_FOUND');
}

/** A token as the operator's command line lists it: both environments, revoked ones included. */
export interface OperatorToken extends ApiToken {
  environment: Scope['environment'];
  revokedAt: string | null;
}

/** Every token of a platform, oldest first (the operator's `payouts tokens list`); never a secret or its hash. */
export async function listPlatformTokens(ctx: Ctx, platformId: string): Promise<OperatorToken[]> {
  const rows = await ctx.store.db
    .selectFrom('api_tokens')
    .selectAll()
    .where('platform_id', '=', platformId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    ...toApiToken(row),
    environment: row.environment,
    revokedAt: row.revoked_at === null ? null : iso(row.revoked_at),
  }));
}

/** Revokes a token by id alone, whatever its platform (the operator's `payouts tokens revoke`). */
export async function revokeTokenById(ctx: Ctx, tokenId: string): Promise<OperatorToken> {
  return ctx.store.tx(async (trx) => {
    const row = await trx.selectFrom('api_tokens').selectAll().where('id', '=', tokenId).executeTakeFirst();
    if (!row) throw notFound('Token', tokenId, 'TOKEN_NOT_FOUND');
    if (row.revoked_at !== null) throw new AppError('INVALID_INPUT', `Token ${tokenId} is already revoked`);
    const now = BigInt(scopeNowMs(ctx, { platformId: row.platform_id, environment: row.environment }));
    await trx.updateTable('api_tokens').set({ revoked_at: now, updated_at: now }).where('id', '=', tokenId).execute();
    return { ...toApiToken({ ...row, updated_at: now }), environment: row.environment, revokedAt: iso(now) };
  });
}

interface TokenDeps {
  ctx: Ctx;
  /** Token lookups on their way, by token id (see lookUp). */
  inFlight: Map<string, ReturnType<typeof tokenById.first>>;
}

export interface TokenService {
  /** The principal a token's id and secret stand for. Raises UNAUTHORIZED. */
  authenticate(username: string, secret: string): Promise<Principal>;
  /** A new token in the scope, with its secret (shown once). */
  create(scope: Scope, name: string, permissions: readonly Permission[]): Promise<NewToken>;
  /** A page of the scope's live tokens matching the filters. */
  list(scope: Scope, filters: TokenFilters, page: PageRequest): Promise<Page<ApiToken>>;
  /** One live token. Raises TOKEN_NOT_FOUND. */
  get(scope: Scope, tokenId: string): Promise<ApiToken>;
  /** Revokes a token other than the caller's. Raises INVALID_INPUT (itself), TOKEN_NOT_FOUND. */
  revoke(scope: Scope, tokenId: string, callerTokenId: string): Promise<void>;
}

export function makeTokenService(ctx: Ctx): TokenService {
  const deps: TokenDeps = { ctx, inFlight: new Map() };
  return {
    authenticate: bindDeps(deps, authenticate),
    create: bindDeps(deps, create),
    list: bindDeps(deps, list),
    get: bindDeps(deps, get),
    revoke: bindDeps(deps, revoke),
  };
}
