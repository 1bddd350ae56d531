// Signing in with an API token: the token id and client secret (the API's Basic credential) are checked
// once here and then kept in a sealed, HttpOnly, SameSite=Strict cookie. Each request checks them again,
// so a revoked token signs out its sessions at once; a session also ends after SESSION_MS.
import { hkdfSync } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifySecureSession from '@fastify/secure-session';
import { AppError } from '../domain/errors.ts';
import type { Ctx } from '../context.ts';
import type { TokenService } from '../services/tokens.ts';
import { backTo, fieldsOf, requiredText } from './form.ts';
import type { Page } from './render.ts';

/** How long a sign-in lasts. */
export const SESSION_MS = 8 * 3600_000;
export const COOKIE = 'payouts_dashboard';

/** The cookie's sealing key: derived from the data key (stable through a server-key rotation), never stored. */
function sessionKey(dataKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', dataKey, Buffer.alloc(0), 'payouts dashboard session', 32));
}

export async function useSessions(app: FastifyInstance, ctx: Ctx): Promise<void> {
  await app.register(fastifySecureSession, {
    key: sessionKey(ctx.dataKey),
    cookieName: COOKIE,
    expiry: SESSION_MS / 1000,
    cookie: { path: '/dashboard', httpOnly: true, sameSite: 'strict', secure: 'auto' },
  });
}

function signInUrl(req: FastifyRequest, reason?: string): string {
  const next = req.method === 'GET' ? `next=${encodeURIComponent(req.url)}` : '';
  const query = [next, reason ? `reason=${reason}` : ''].filter(Boolean).join('&');
  return `/dashboard/sign-in${query ? `?${query}` : ''}`;
}

/**
 * The hook in front of every screen: no session, an expired one or credentials that no longer
 * authenticate (revoked token) lead to the sign-in page; otherwise req.principal is the token's.
 */
export function makeSignedIn(ctx: Ctx, tokens: TokenService) {
  return async function signedIn(req: FastifyRequest, reply: FastifyReply) {
    const tokenId = req.session.get('tokenId');
    const secret = req.session.get('secret');
    const expiresAt = req.session.get('expiresAt');
    if (!tokenId || !secret || !expiresAt) return reply.redirect(signInUrl(req), 303);
    if (expiresAt <= ctx.clock.nowMs()) {
      req.session.delete();
      return reply.redirect(signInUrl(req, 'expired'), 303);
    }
    try {
      req.principal = await tokens.authenticate(tokenId, secret);
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'UNAUTHORIZED') throw err;
      req.session.delete();
      return reply.redirect(signInUrl(req, 'revoked'), 303);
    }
  };
}

const REASONS: Record<string, string> = {
  expired: 'Your session expired. Sign in again.',
  revoked: 'That token no longer signs in (it was revoked). Sign in with another.',
  'signed-out': 'You are signed out.',
};

export function sessionRoutes(app: FastifyInstance, ctx: Ctx, tokens: TokenService, page: Page): void {
  const hide = { schema: { hide: true } };
  app.get('/sign-in', hide, async (req, reply) => {
    const query = fieldsOf(req.query);
    const reason = typeof query.reason === 'string' ? REASONS[query.reason] : undefined;
    return page(req, reply, 'sign-in', {
      title: 'Sign in',
      notice: reason,
      next: backTo({ back: query.next }, '/dashboard'),
    });
  });

  app.post('/sign-in', hide, async (req, reply) => {
    const form = fieldsOf(req.body);
    const next = backTo({ back: form.next }, '/dashboard');
    const tokenId = requiredText(form, 'tokenId', 200);
    const secret = requiredText(form, 'clientSecret', 200);
    try {
      await tokens.authenticate(tokenId, secret);
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'UNAUTHORIZED') throw err;
      reply.status(401);
      return page(req, reply, 'sign-in', {
        title: 'Sign in',
        error: 'Those credentials do not sign in.',
        next,
        tokenId,
      });
    }
    req.session.set('tokenId', tokenId);
    req.session.set('secret', secret);
    req.session.set('expiresAt', ctx.clock.nowMs() + SESSION_MS);
    return reply.redirect(next, 303);
  });

  app.post('/sign-out', hide, async (req, reply) => {
    req.session.delete();
    return reply.redirect('/dashboard/sign-in?reason=signed-out', 303);
  });
}
