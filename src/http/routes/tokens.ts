import { Type } from '@sinclair/typebox';
import { created, type Http } from '../http.ts';
import type { Services } from '../../services/index.ts';
import { ApiToken, TokenCreate, TokenListQuery } from '../../wire/tokens.ts';
import { errors, IdParam, Paginated } from '../../wire/common.ts';
import { ms, pageOf } from './paging.ts';

const DOCS = {
  create: {
    summary: 'Create an API token (its secret is shown once)',
    description:
      'A token with the given permissions (VIEW, TRANSACT, MANAGE) for this environment. Store clientSecret ' +
      'now: it is never shown again. Takes Idempotency-Key.',
  },
  list: { summary: 'List API tokens', description: 'Filter by name or time; secrets are never listed.' },
  get: { summary: 'Get an API token', description: 'One token, without its secret.' },
  revoke: {
    summary: 'Revoke an API token',
    description: 'The token stops working at once; a token cannot revoke itself (400). Answers 204.',
  },
};

export function tokenRoutes(api: Http, { tokens }: Services): void {
  const tags = ['Tokens'];
  api.post('/tokens', {
    config: { permission: 'MANAGE', idempotent: true },
    schema: {
      tags,
      ...DOCS.create,
      body: TokenCreate,
      response: { 201: ApiToken, ...errors(400, 401, 403) },
    },
    handler: async (req, reply) =>
      created(reply, await tokens.create(req.principal, req.body.name, req.body.permissions)),
  });
  api.get('/tokens', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      ...DOCS.list,
      querystring: TokenListQuery,
      response: { 200: Paginated(ApiToken), ...errors(400, 401, 403) },
    },
    handler: async (req) => {
      const q = req.query;
      return tokens.list(
        req.principal,
        {
          name: q.name,
          createdAfter: ms(q.createdAfter),
          createdBefore: ms(q.createdBefore),
          updatedAfter: ms(q.updatedAfter),
          updatedBefore: ms(q.updatedBefore),
        },
        pageOf(q, 'desc'),
      );
    },
  });
  api.get('/tokens/:tokenId', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      ...DOCS.get,
      params: IdParam('tokenId', 'Token'),
      response: { 200: ApiToken, ...errors(401, 403, 404) },
    },
    handler: async (req) => tokens.get(req.principal, req.params.tokenId),
  });
  api.delete('/tokens/:tokenId', {
    config: { permission: 'MANAGE' },
    schema: {
      tags,
      ...DOCS.revoke,
      params: IdParam('tokenId', 'Token'),
      response: { 204: Type.Null(), ...errors(400, 401, 403, 404) },
    },
    handler: async (req, reply) => {
      await tokens.revoke(req.principal, req.params.tokenId, req.principal.tokenId);
      return reply.status(204).send(null);
    },
  });
}
