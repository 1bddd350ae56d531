import type { Http } from '../http.ts';
import type { Services } from '../../services/index.ts';
import {
  AccountReceiverLookup,
  ReceiverAccountParam,
  ReceiverLookupQuery,
  ReceiverUmaParam,
  UmaReceiverLookup,
} from '../schemas/receiver.ts';
import { UmaProvider, UmaProviderQuery } from '../schemas/uma-providers.ts';
import { errors, Paginated } from '../schemas/common.ts';
import { listUmaProviders } from '../../domain/uma-providers.ts';
import { pageOf } from './paging.ts';

export function receiverRoutes(api: Http, { receiverLookups }: Services): void {
  const tags = ['Receiver lookup'];
  // Paths may carry `$` and `@` raw or percent-encoded; the router decodes both to the same address.
  api.get('/receiver/uma/:receiverUmaAddress', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      summary: 'Look up a UMA address before quoting a payment to it',
      params: ReceiverUmaParam,
      querystring: ReceiverLookupQuery,
      response: { 200: UmaReceiverLookup, ...errors(400, 401, 403, 404) },
    },
    handler: async (req) => receiverLookups.lookupUma(req.principal, req.params.receiverUmaAddress, req.query),
  });
  api.get('/receiver/external-account/:accountId', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      summary: "Look up one of the platform's external accounts before quoting a payment to it",
      params: ReceiverAccountParam,
      querystring: ReceiverLookupQuery,
      response: { 200: AccountReceiverLookup, ...errors(400, 401, 403, 404) },
    },
    handler: async (req) => receiverLookups.lookupExternalAccount(req.principal, req.params.accountId, req.query),
  });
  api.get('/uma-providers', {
    config: { permission: 'VIEW' },
    schema: {
      tags: ['UMA providers'],
      summary: 'List known UMA providers, ordered by name (sortOrder, default desc)',
      querystring: UmaProviderQuery,
      response: { 200: Paginated(UmaProvider), ...errors(400, 401, 403) },
    },
    handler: async (req) => {
      const q = req.query;
      return listUmaProviders(
        { countryCode: q.countryCode, currencyCode: q.currencyCode, hasBlockedProviders: q.hasBlockedProviders },
        pageOf(q, q.sortOrder ?? 'desc'),
      );
    },
  });
}
