import { Type } from '@sinclair/typebox';
import { created, type Http } from '../http.ts';
import type { Services } from '../../services/index.ts';
import type { AccountView } from '../../services/external-accounts.ts';
import type { Scope } from '../../context.ts';
import {
  CustomerExternalAccountQuery,
  ExternalAccount,
  ExternalAccountCreate,
  PlatformExternalAccountCreate,
  PlatformExternalAccountQuery,
} from '../../wire/external-accounts.ts';
import { errors, IdParam, Paginated } from '../../wire/common.ts';
import { pageOf } from './paging.ts';

// The specification lists the platform's accounts at once, the newest contract pages them: without
// `limit`, one page holds this many.
const UNPAGED = 1000;

const DOCS = {
  create: {
    summary: 'Create an external account for a customer (or, without customerId, for the platform)',
    description:
      'A bank account, mobile-money account or wallet that payouts go to. accountInfo holds the fields of ' +
      'its accountType, each checked by the account-type rules; an unknown or missing field is a 400 naming ' +
      'it. Takes Idempotency-Key.',
  },
  list: {
    summary: "List customers' external accounts (oldest first)",
    description: 'Filter by customerId or currency; pages with limit and cursor.',
  },
  createPlatform: {
    summary: 'Create an external account for the platform',
    description:
      "The platform's own account (for example to collect fees or fund its accounts). Takes Idempotency-Key.",
  },
  listPlatform: {
    summary: "List the platform's external accounts",
    description: 'Without limit, up to 1000 accounts in one page; with limit, pages as usual.',
  },
  get: {
    summary: 'Get an external account',
    description: 'One external account with its status and beneficiary verification result.',
  },
  remove: {
    summary: 'Deactivate an external account (kept as INACTIVE, never erased)',
    description: 'No payment can go to it afterwards; past transactions still name it. Answers 204.',
  },
};

/** DELETE answers no content: the account stays, INACTIVE. */
function deactivator(externalAccounts: Services['externalAccounts']) {
  return async (id: string, scope: Scope, view: AccountView): Promise<null> => {
    await externalAccounts.remove(scope, id, view);
    return null;
  };
}

export function externalAccountRoutes(api: Http, { externalAccounts }: Services): void {
  const tags = ['External accounts'];
  const params = IdParam('externalAccountId', 'ExternalAccount');
  const remove = deactivator(externalAccounts);

  api.post('/customers/external-accounts', {
    config: { permission: 'MANAGE', idempotent: true },
    schema: {
      tags,
      ...DOCS.create,
      body: ExternalAccountCreate,
      response: { 201: ExternalAccount, ...errors(400, 401, 403, 404, 409, 410, 500) },
    },
    handler: async (req, reply) => created(reply, await externalAccounts.create(req.principal, req.body)),
  });
  api.get('/customers/external-accounts', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      ...DOCS.list,
      querystring: CustomerExternalAccountQuery,
      response: { 200: Paginated(ExternalAccount), ...errors(400, 401, 403) },
    },
    handler: async (req) => externalAccounts.listCustomerAccounts(req.principal, req.query, pageOf(req.query, 'asc')),
  });
  api.post('/platform/external-accounts', {
    config: { permission: 'MANAGE', idempotent: true },
    schema: {
      tags,
      ...DOCS.createPlatform,
      body: PlatformExternalAccountCreate,
      response: { 201: ExternalAccount, ...errors(400, 401, 403, 409, 500) },
    },
    handler: async (req, reply) =>
      created(reply, await externalAccounts.create(req.principal, { ...req.body, customerId: null })),
  });
  api.get('/platform/external-accounts', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      ...DOCS.listPlatform,
      querystring: PlatformExternalAccountQuery,
      response: { 200: Paginated(ExternalAccount), ...errors(400, 401, 403) },
    },
    handler: async (req) =>
      externalAccounts.listPlatformAccounts(req.principal, req.query, pageOf(req.query, 'asc', UNPAGED)),
  });

  // The customer paths answer for any account in scope, the platform paths only for the platform's own.
  const single: [string, AccountView][] = [
    ['/customers/external-accounts/:externalAccountId', 'any'],
    ['/platform/external-accounts/:externalAccountId', 'platform'],
  ];
  for (const [path, view] of single) {
    api.get(path, {
      config: { permission: 'VIEW' },
      schema: {
        tags,
        ...DOCS.get,
        params,
        response: { 200: ExternalAccount, ...errors(401, 403, 404) },
      },
      handler: async (req) => externalAccounts.get(req.principal, req.params.externalAccountId, view),
    });
    api.delete(path, {
      config: { permission: 'MANAGE' },
      schema: {
        tags,
        ...DOCS.remove,
        params,
        response: { 204: Type.Null({ description: 'Deactivated (or already inactive)' }), ...errors(401, 403, 404) },
      },
      handler: async (req, reply) =>
        reply.status(204).send(await remove(req.params.externalAccountId, req.principal, view)),
    });
  }
}
