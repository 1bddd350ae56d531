import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { AppError } from '../domain/errors.ts';
import { isUniqueViolation, withinTransaction, type Db, type Tx } from '../store/db.ts';
import { scopeNowMs, wallNowMs, type Ctx, type Scope } from '../context.ts';
import { canonical } from '../domain/canonical-json.ts';

/** An answer as it went out: its status and the exact bytes of its body. */
export interface StoredAnswer {
  status: number;
  body: string;
  /** True when this is the stored answer to an earlier request with the same key. */
  replayed: boolean;
}

/** What makes two requests "the same request": the route, its path parameters and its body. */
export interface RequestIdentity {
  route: string;
  params: unknown;
  body: unknown;
}

// Keys are one namespace per platform environment: a key reused on another route is a different request.
const OPERATION = 'request';

/** One key of one platform environment, and the hash of the request it was first used with. */
interface KeyOf {
  ctx: Ctx;
  scope: Scope;
  key: string;
  hash: string;
  nowMs: number;
}

/**
 * The one idempotency rule, for every request that creates something or moves money:
 * - the key is claimed first, in the same database transaction as the work, and the answer is written
 *   over the claim before that transaction commits, so the effect and its stored answer commit together;
 * - a concurrent request with the same key waits on the claim (PostgreSQL's unique index; SQLite runs
 *   writers one at a time) and then answers what the first stored;
 * - a 4xx the work raises rolls its effects back, and the error answer is stored on its own (the first
 *   stored answer wins); a 5xx or any other failure is not stored, so a retry runs again;
 * - the same key with another request is 422 IDEMPOTENCY_KEY_REUSED;
 * - a key older than IDEMPOTENCY_KEY_TTL_HOURS is forgotten and may be used again.
 */
export async function answerOnce(
  ctx: Ctx,
  scope: Scope,
  key: string,
  identity: RequestIdentity,
  work: () => Promise<{ status: number; body: string }>,
  storableError: (err: unknown) => { status: number; body: string } | undefined,
): Promise<StoredAnswer> {
  const k: KeyOf = {
    ctx,
    scope,
    key,
    hash: createHash('sha256').update(canonical(identity)).digest('hex'),
    nowMs: scopeNowMs(ctx, scope),
  };
  let failure: unknown;
  try {
    return await ctx.store.tx(async (trx) => {
      const earlier = await claimOrReplay(k, trx);
      if (earlier) return earlier;
      try {
        const answer = await withinTransaction(trx, work);
        await fill(trx, k, answer);
        return { ...answer, replayed: false };
      } catch (err) {
        failure = err;
        throw err;
      }
    });
  } catch (err) {
    if (err !== failure) return replayWinner(k, err);
  }
  const refusal = storableError(failure);
  if (!refusal) throw failure;
  try {
    await ctx.store.tx((trx) => trx.insertInto('idempotency_keys').values(rowOf(k, refusal)).execute());
    return { ...refusal, replayed: false };
  } catch (err) {
    return replayWinner(k, err);
  }
}

function rowOf(k: KeyOf, answer: { status: number; body: string }) {
  return {
    platform_id: k.scope.platformId,
    environment: k.scope.environment,
    operation: OPERATION,
    key: k.key,
    request_hash: k.hash,
    response_status: BigInt(answer.status),
    response_body: answer.body,
    created_at: BigInt(k.nowMs),
  };
}

function lookup(db: Db | Tx, k: KeyOf) {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('platform_id', '=', k.scope.platformId)
    .where('environment', '=', k.scope.environment)
    .where('operation', '=', OPERATION)
    .where('key', '=', k.key)
    .executeTakeFirst();
}

function replay(k: KeyOf, row: { request_hash: string; response_status: bigint; response_body: string }): StoredAnswer {
  if (row.request_hash !== k.hash) {
    throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request', {
      field: 'Idempotency-Key',
    });
  }
  return { status: Number(row.response_status), body: row.response_body, replayed: true };
}

/** The stored answer of an earlier request with the key, or the claim of the key for this one. */
async function claimOrReplay(k: KeyOf, trx: Tx): Promise<StoredAnswer | undefined> {
  const existing = await lookup(trx, k);
  const ttlMs = k.ctx.config.idempotencyKeyTtlHours * 3_600_000;
  if (existing && Number(existing.created_at) > k.nowMs - ttlMs) return replay(k, existing);
  if (existing) await forget(trx, k);
  // The claim: a concurrent request with this key blocks here until this transaction ends.
  await trx
    .insertInto('idempotency_keys')
    .values(rowOf(k, { status: 0, body: '' }))
    .execute();
  return undefined;
}

/** Another request stored its answer first (our insert collided): answer that. */
async function replayWinner(k: KeyOf, err: unknown): Promise<StoredAnswer> {
  const stored = isUniqueViolation(err) ? await lookup(k.ctx.store.db, k) : undefined;
  if (!stored) throw err;
  return replay(k, stored);
}

async function fill(trx: Tx, k: KeyOf, answer: { status: number; body: string }): Promise<void> {
  await trx
    .updateTable('idempotency_keys')
    .set({ response_status: BigInt(answer.status), response_body: answer.body })
    .where('platform_id', '=', k.scope.platformId)
    .where('environment', '=', k.scope.environment)
    .where('operation', '=', OPERATION)
    .where('key', '=', k.key)
    .execute();
}

async function forget(trx: Tx, k: KeyOf): Promise<void> {
  await trx
    .deleteFrom('idempotency_keys')
    .where('platform_id', '=', k.scope.platformId)
    .where('environment', '=', k.scope.environment)
    .where('operation', '=', OPERATION)
    .where('key', '=', k.key)
    .execute();
}

/** Most keys one purge statement removes: a backlog is worked off over several passes, in short transactions. */
const PURGE_BATCH = 5_000;

/**
 * Forgets keys older than IDEMPOTENCY_KEY_TTL_HOURS, so the table holds about one TTL of traffic. A key is
 * stamped with its platform's time, which a sandbox clock may have moved ahead of wall time: such keys are
 * kept a little longer, never purged early. Returns how many keys were removed.
 */
export async function forgetExpiredKeys(ctx: Ctx): Promise<number> {
  const cutoff = BigInt(wallNowMs(ctx) - ctx.config.idempotencyKeyTtlHours * 3_600_000);
  let removed = 0;
  for (;;) {
    const expired = ctx.store.db
      .selectFrom('idempotency_keys')
      .select(['platform_id', 'environment', 'operation', 'key'])
      .where('created_at', '<', cutoff)
      .limit(PURGE_BATCH);
    const result = await ctx.store.db
      .deleteFrom('idempotency_keys')
      .where(sql<boolean>`(platform_id, environment, operation, key) in (${expired})`)
      .executeTakeFirst();
    const count = Number(result.numDeletedRows);
    removed += count;
    if (count < PURGE_BATCH) return removed;
  }
}
