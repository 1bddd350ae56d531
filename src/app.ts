import type { Config } from './config.ts';
import type { Clock } from './domain/clock.ts';
import { buildHttp } from './http/server.ts';
import type { Http } from './http/http.ts';
import type { Store } from './store/db.ts';
import type { Services } from './services/index.ts';
import { openServices } from './open-services.ts';

export interface App {
  http: Http;
  store: Store;
  services: Services;
  close(): Promise<void>;
}

export interface AppOptions {
  clock?: Clock;
  /** Random source of the webhook retry jitter (Math.random by default). */
  random?: () => number;
  validateResponses?: boolean;
}

/** Wires services, workers and HTTP on an up-to-date database. Does not listen. */
export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const { store, services } = await openServices(config, options.clock, options.random);
  const http = await buildHttp(services, {
    logger: services.log,
    bodyLimitBytes: config.bodyLimitBytes,
    rateLimits: config.rateLimitPerMinute,
    validateResponses: options.validateResponses ?? false,
    ready: () => store.ping(),
    mcpHttp: config.mcpHttp,
  });
  if (config.runWorkers) services.worker.start();
  let closed = false;
  return {
    http,
    store,
    services,
    async close() {
      if (closed) return;
      closed = true;
      // Stop taking requests, let those in flight finish, stop the workers, then close the database.
      await http.close();
      await services.worker.stop();
      await store.close();
    },
  };
}
