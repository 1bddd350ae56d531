import type { Clock } from '../domain/clock.ts';
import type { Config } from '../config.ts';
import type { Store } from '../store/db.ts';
import type { Environment } from '../store/schema.ts';

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
}

/** "Now" as this scope sees it: real time, plus the sandbox clock's offset. The one way services read time. */
export function nowMs(ctx: Ctx, scope: Scope): number {
  return ctx.clock.nowMs() + (scope.clockOffsetMs ?? 0);
}
