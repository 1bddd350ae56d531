import type { Clock } from '../domain/clock.ts';
import type { Config } from '../config.ts';
import type { Store } from '../store/db.ts';
import type { Environment } from '../store/schema.ts';

/** Who is asking: every query is scoped to one platform and one environment. */
export interface Scope {
  platformId: string;
  environment: Environment;
}

/** What every service needs; built once in app.ts. */
export interface Ctx {
  store: Store;
  clock: Clock;
  config: Config;
}
