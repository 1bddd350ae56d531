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
