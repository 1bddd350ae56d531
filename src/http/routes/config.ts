import type { Http } from '../http.ts';
import type { Services } from '../../services/index.ts';
import { PlatformConfig, PlatformConfigUpdate, withoutIgnoredConfig } from '../../wire/config.ts';
import { errors } from '../../wire/common.ts';

const DOCS = {
  get: {
    summary: "This environment's platform configuration, with the webhook verification keys",
    description:
      'The UMA domain, webhook endpoint and envelope, supported currencies with their limits and required ' +
      'counterparty fields, and the public keys that verify webhook signatures.',
  },
  update: {
    summary:
      'Update the configuration; a new webhookEndpoint gets one TEST webhook, a new currency opens its internal ' +
      'accounts',
    description:
      'Changes the fields given. supportedCurrencies replaces the whole list; null webhookEndpoint removes it.',
  },
};

export function configRoutes(api: Http, { platformConfig }: Services): void {
  const tags = ['Platform configuration'];
  api.get('/config', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      ...DOCS.get,
      response: { 200: PlatformConfig, ...errors(401, 403) },
    },
    handler: async (req) => platformConfig.get(req.principal),
  });
  api.patch('/config', {
    config: { permission: 'MANAGE' },
    schema: {
      tags,
      ...DOCS.update,
      body: PlatformConfigUpdate,
      response: { 200: PlatformConfig, ...errors(400, 401, 403, 409) },
    },
    handler: async (req) => platformConfig.update(req.principal, withoutIgnoredConfig(req.body)),
  });
}
