import { createHash } from 'node:crypto';
import { AppError } from '../domain/errors.ts';
import { isUniqueViolation, type Tx } from '../store/db.ts';
import { scopeNowMs, type Ctx, type Scope } from '../context.ts';

export interface Stored<T> {
  status: number;
  body: T;
}

/** Key order does not change what a request means, so it does not change its hash either. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Runs `work` once per Idempotency-Key: the key is stored with the response in the same database
 * transaction as the work, so a retry returns the first response and moves no money again. Two requests
 * racing with one key: the second one's insert collides, its transaction (and its work) rolls back, and
 * it answers with what the first stored. The same key with another body is refused.
 */
export async function idempotent<T>(
  ctx: Ctx,
  scope: Scope,
  operation: string,
  key: string | undefined,
  request: unknown,
  work: (trx: Tx) => Promise<Stored<T>>,
): Promise<Stored<T>> {
  if (key === undefined) return ctx.store.tx(work);
  const hash = createHash('sha256').update(canonical(request)).digest('hex');
  const lookup = (trx: Tx | typeof ctx.store.db) =>
    trx
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('platform_id', '=', scope.platformId)
      .where('environment', '=', scope.environment)
      .where('operation', '=', operation)
      .where('key', '=', key)
      .executeTakeFirst();
  const replay = (row: NonNullable<Awaited<ReturnType<typeof lookup>>>): Stored<T> => {
    if (row.request_hash !== hash) {
      throw new AppError(
        'IDEMPOTENCY_KEY_REUSED',
        'This Idempotency-Key was already used with a different request body',
        { field: 'Idempotency-Key' },
      );
    }
    return { status: Number(row.response_status), body: JSON.parse(row.response_body) as T };
  };
  try {
    return await ctx.store.tx(async (trx) => {
      const existing = await lookup(trx);
      if (existing) return replay(existing);
      const result = await work(trx);
      await trx
        .insertInto('idempotency_keys')
        .values({
          platform_id: scope.platformId,
          environment: scope.environment,
          operation,
          key,
          request_hash: hash,
          response_status: BigInt(result.status),
          response_body: JSON.stringify(result.body),
          created_at: BigInt(scopeNowMs(ctx, scope)),
        })
        .execute();
      return result;
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const winner = await lookup(ctx.store.db);
    if (!winner) throw err;
    return replay(winner);
  }
}
