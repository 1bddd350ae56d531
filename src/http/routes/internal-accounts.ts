import type { Http } from '../http.ts';
import type { Services } from '../../services/index.ts';
import {
  CustomerInternalAccountQuery,
  InternalAccount,
  PlatformInternalAccountQuery,
  SandboxFund,
} from '../../wire/internal-accounts.ts';
import { DataList, errors, IdParam, Paginated } from '../../wire/common.ts';
import { pageOf } from './paging.ts';

const DOCS = {
  list: {
    summary: "List customers' internal accounts",
    description: 'The balances this service holds for customers, one account per customer and currency.',
  },
  listPlatform: {
    summary: "List the platform's internal accounts",
    description: "The platform's own balances, one per currency, all at once.",
  },
  fund: {
    summary: 'Credit an internal account in the sandbox (a ledger entry against the settlement account)',
    description:
      'Sandbox only: adds amount (smallest unit) to the balance, as if money had arrived. Takes Idempotency-Key.',
  },
};

export function internalAccountRoutes(api: Http, { internalAccounts }: Services): void {
  const tags = ['Internal accounts'];
  api.get('/customers/internal-accounts', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      ...DOCS.list,
      querystring: CustomerInternalAccountQuery,
      response: { 200: Paginated(InternalAccount), ...errors(400, 401, 403) },
    },
    handler: async (req) => internalAccounts.listCustomerAccounts(req.principal, req.query, pageOf(req.query, 'asc')),
  });
  api.get('/platform/internal-accounts', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      ...DOCS.listPlatform,
      querystring: PlatformInternalAccountQuery,
      response: { 200: DataList(InternalAccount), ...errors(400, 401, 403) },
    },
    handler: async (req) => ({ data: await internalAccounts.listPlatformAccounts(req.principal, req.query) }),
  });
  api.post('/sandbox/internal-accounts/:accountId/fund', {
    config: { permission: 'TRANSACT', sandboxOnly: true, idempotent: true },
    schema: {
      tags: ['Sandbox'],
      ...DOCS.fund,
      params: IdParam('accountId', 'InternalAccount'),
      body: SandboxFund,
      response: { 200: InternalAccount, ...errors(400, 401, 403, 404) },
    },
    handler: async (req) => internalAccounts.fundSandbox(req.principal, req.params.accountId, req.body.amount),
  });
}
