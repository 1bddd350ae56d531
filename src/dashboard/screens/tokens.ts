// API tokens of this platform and environment: list, create (the secret is shown on that one page and
// never again), revoke.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import type { ApiToken } from '../../services/tokens.ts';
import { PERMISSIONS } from '../../domain/permissions.ts';
import { checked, fieldsOf, requiredText, text } from '../form.ts';
import { done, need, type Screens } from '../render.ts';

const hide = { schema: { hide: true } };

export function tokenScreens(app: FastifyInstance, { services, page }: Screens): void {
  const { tokens } = services;

  const show = async (req: FastifyRequest, reply: FastifyReply, created?: ApiToken) => {
    const cursor = text(fieldsOf(req.query), 'cursor', false, 500);
    const list = await tokens.list(req.principal, {}, { limit: 50, cursor, order: 'desc' });
    return page(req, reply, 'tokens', {
      title: 'API tokens',
      nav: 'tokens',
      tokens: list,
      created,
      permissions: PERMISSIONS,
      nextUrl: list.nextCursor ? `/dashboard/tokens?cursor=${list.nextCursor}` : undefined,
    });
  };

  app.get('/tokens', hide, async (req, reply) => {
    need(req, 'VIEW');
    return show(req, reply);
  });

  app.post('/tokens', hide, async (req, reply) => {
    need(req, 'MANAGE');
    const form = fieldsOf(req.body);
    const name = requiredText(form, 'name', 100);
    const permissions = checked(form, 'permissions', PERMISSIONS);
    if (permissions.length === 0)
      throw new AppError('INVALID_INPUT', 'Choose at least one permission', { field: 'permissions' });
    const created = await tokens.create(req.principal, name, permissions);
    reply.status(201);
    return show(req, reply, created);
  });

  app.post('/tokens/:id/revoke', hide, async (req, reply) => {
    need(req, 'MANAGE');
    const id = requiredText(fieldsOf(req.params), 'id', 200);
    await tokens.revoke(req.principal, id, req.principal.tokenId);
    return done(req, reply, '/dashboard/tokens', `Revoked ${id}: it no longer authenticates.`);
  });
}
