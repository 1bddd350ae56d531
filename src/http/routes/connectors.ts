import { ADAPTER_CONTRACT } from '../../rails/http/adapter-contract.ts';
import type { Services } from '../../services/index.ts';
import type { Http } from '../http.ts';

/**
 * What rail adapters call: `POST /connectors/{name}/events`, signed with the connector's secret (Standard
 * Webhooks), verified against the exact bytes received; not a platform's API, so no platform credentials
 * and not in the public OpenAPI document. The adapter protocol itself is docs/connectors.md.
 */
export function connectorRoutes(services: Services) {
  return async (api: Http): Promise<void> => {
    // The signature covers the raw body: keep the bytes instead of parsing them here.
    api.removeAllContentTypeParsers();
    api.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 64 * 1024 }, (_req, body, done) => done(null, body));
    // The adapter protocol, for whoever writes an adapter (or generates one).
    api.get('/openapi.json', { schema: { hide: true } }, async () => ADAPTER_CONTRACT);
    api.post<{ Params: { name: string } }>('/:name/events', { schema: { hide: true } }, async (req, reply) => {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const taken = await services.connectors.receiveCallback(req.params.name, { headers: req.headers, body });
      return reply.status(taken.result === 'UNKNOWN_PAYMENT' ? 202 : 200).send({
        received: true,
        applied: taken.result === 'APPLIED',
        result: taken.result,
        ...(taken.transactionId ? { transactionId: taken.transactionId } : {}),
      });
    });
  };
}
