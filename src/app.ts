import type { Config } from './config.ts';
import { systemClock, type Clock } from './domain/clock.ts';
import { buildHttp, type Http } from './http/server.ts';
import type { Ctx } from './services/context.ts';
import { makeCustomerService } from './services/customers.ts';
import { makeExternalAccountService } from './services/external-accounts.ts';
import { makeInternalAccountService } from './services/internal-accounts.ts';
import { makeTokenService } from './services/tokens.ts';
import { migrate, openStore, type Store } from './store/db.ts';

export function makeServices(ctx: Ctx) {
  const customers = makeCustomerService(ctx);
  return {
    ctx,
    tokens: makeTokenService(ctx),
    customers,
    internalAccounts: makeInternalAccountService(ctx),
    externalAccounts: makeExternalAccountService(ctx, customers),
  };
}

export type Services = ReturnType<typeof makeServices>;

export interface App {
  http: Http;
  store: Store;
  services: Services;
  close(): Promise<void>;
}

export interface AppOptions {
  clock?: Clock;
  validateResponses?: boolean;
}

/** Opens the database and brings its schema up to date: what the server and every CLI command start with. */
export async function openServices(config: Config, clock: Clock = systemClock): Promise<{ store: Store; services: Services }> {
  const store = openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  try {
    await migrate(store);
  } catch (err) {
    await store.close();
    throw err;
  }
  return { store, services: makeServices({ store, clock, config }) };
}

/** Wires services and HTTP on an up-to-date database. Does not listen. */
export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const { store, services } = await openServices(config, options.clock);
  const http = await buildHttp(services, {
    logLevel: config.logLevel,
    bodyLimitBytes: config.bodyLimitBytes,
    validateResponses: options.validateResponses ?? false,
    ready: () => store.ping(),
  });
  let closed = false;
  return {
    http,
    store,
    services,
    async close() {
      if (closed) return;
      closed = true;
      await http.close();
      await store.close();
    },
  };
}
