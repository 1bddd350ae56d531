import type { Http } from '../http.ts';
import type { Services } from '../../services/index.ts';
import {
  AccountReceiverLookup,
  ReceiverAccountParam,
  ReceiverLookupQuery,
  ReceiverUmaParam,
  UmaReceiverLookup,
} from '../../wire/receiver.ts';
import { UmaProvider, UmaProviderQuery } from '../../wire/uma-providers.ts';
import { errors, Paginated } from '../../wire/common.ts';
import { listUmaProviders } from '../../domain/uma-providers.ts';
import { pageOf } from './paging.ts';

const DOCS = {
  uma: {
    summary: 'Look up a UMA address before quoting a payment to it',
    description:
      'Which currencies the receiver takes, at what estimated rate and limits, and which payer fields it ' +
      'requires. Pass lookupId on to the quote.',
  },
  account: {
    summary: "Look up one of the platform's external accounts before quoting a payment to it",
    description: 'The same answer as the UMA lookup, for an external account.',
  },
  providers: {
    summary: 'List known UMA providers, ordered by name (sortOrder, default desc)',
    description: 'Filter by countryCode or currencyCode; hasBlockedProviders=false leaves out blocked ones.',
  },
};

export function receiverRoutes(api: Http, { receiverLookups }: Services): void {
  const tags = ['Receiver lookup'];
  // Paths may carry `$` and `@` raw or percent-encoded; the router decodes both to the same address.
  api.get('/receiver/uma/:receiverUmaAddress', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      ...DOCS.uma,
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
      ...DOCS.account,
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
      ...DOCS.providers,
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
