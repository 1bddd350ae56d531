import { Type } from '@sinclair/typebox';
import { created, type Http } from '../http.ts';
import type { Services } from '../../services/index.ts';
import { ApiToken, TokenCreate, TokenListQuery } from '../schemas/tokens.ts';
import { errors, IdParam, Paginated } from '../schemas/common.ts';
import { ms, pageOf } from './paging.ts';

export function tokenRoutes(api: Http, { tokens }: Services): void {
  const tags = ['Tokens'];
  api.post('/tokens', {
    config: { permission: 'MANAGE', idempotent: true },
    schema: {
      tags,
      summary: 'Create an API token (its secret is shown once)',
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
      summary: 'List API tokens',
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
      summary: 'Get an API token',
      params: IdParam('tokenId', 'Token'),
      response: { 200: ApiToken, ...errors(401, 403, 404) },
    },
    handler: async (req) => tokens.get(req.principal, req.params.tokenId),
  });
  api.delete('/tokens/:tokenId', {
    config: { permission: 'MANAGE' },
    schema: {
      tags,
      summary: 'Revoke an API token',
      params: IdParam('tokenId', 'Token'),
      response: { 204: Type.Null(), ...errors(400, 401, 403, 404) },
    },
    handler: async (req, reply) => {
      await tokens.revoke(req.principal, req.params.tokenId, req.principal.tokenId);
      return reply.status(204).send(null);
    },
  });
}
