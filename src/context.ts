// What every layer between the store and the services shares: who is asking (Scope), what every use case
// needs (Ctx), and the two clocks, each with a name of its own so that one is never taken for the other.
import type { Clock } from './domain/clock.ts';
import type { Config } from './config.ts';
import type { Store } from './store/db.ts';
import type { Environment } from './domain/environments.ts';

/**
 * Whether a row belongs to the scope. A lookup by id selects by the id alone and checks the scope on the
 * row with this: a query that also names platform_id and environment can be planned on one of the
 * (platform_id, environment, …) indexes while the planner has no statistics (a young database), which
 * reads every row of the platform to find one (test/money/plans.test.ts).
 */
export function inScope(row: { platform_id: string; environment: string }, scope: Scope): boolean {
  return row.platform_id === scope.platformId && row.environment === scope.environment;
}

/** Who is asking: every query is scoped to one platform and one environment. */
export interface Scope {
  platformId: string;
  environment: Environment;
  /** Sandbox clock: how far this scope's time runs ahead of real time (0 in production). */
  clockOffsetMs?: number;
  /**
   * Whether a webhook endpoint was configured when this scope was loaded. Events recorded without one
   * are marked NO_ENDPOINT at once instead of queueing a delivery that has nowhere to go. Unknown
   * (undefined) always queues the delivery, which then decides.
   */
  hasWebhookEndpoint?: boolean;
}

/** What every service needs; built once in app.ts. */
export interface Ctx {
  store: Store;
  clock: Clock;
  config: Config;
  /**
   * The key every secret at rest is peppered or sealed with (token hashes, webhook signing keys). It is
   * not SECRET_KEY: SECRET_KEY only seals it (store/data-key.ts), so that SECRET_KEY can be rotated.
   */
  dataKey: Buffer;
}

/**
 * The scope's time: real time plus its sandbox clock's offset. Every timestamp a platform sees
 * (created_at, expiresAt, settledAt…) is stamped with this one.
 */
export function scopeNowMs(ctx: Ctx, scope: Scope): number {
  return ctx.clock.nowMs() + (scope.clockOffsetMs ?? 0);
}

/**
 * Real time, for what no platform's clock may move: job due times and leases (the sandbox clock moves a
 * platform's jobs earlier when it advances instead), process-wide records such as platform creation.
 */
export function wallNowMs(ctx: Ctx): number {
  return ctx.clock.nowMs();
}
