import type { Http } from '../server.ts';
import type { Services } from '../../app.ts';
import { configRoutes } from './config.ts';
import { customerRoutes } from './customers.ts';
import { externalAccountRoutes } from './external-accounts.ts';
import { internalAccountRoutes } from './internal-accounts.ts';
import { sandboxClockRoutes } from './sandbox-clock.ts';
import { tokenRoutes } from './tokens.ts';
import { webhookRoutes } from './webhooks.ts';

export function registerRoutes(api: Http, services: Services): void {
  tokenRoutes(api, services);
  customerRoutes(api, services);
  internalAccountRoutes(api, services);
  sandboxClockRoutes(api, services);
  externalAccountRoutes(api, services);
  configRoutes(api, services);
  webhookRoutes(api, services);
}
