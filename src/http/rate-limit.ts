// Per-token request limits. The count is kept in this process's memory (@fastify/rate-limit's local
// store): N server processes behind one balancer let a token make up to N times the limit.
import rateLimit from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.ts';
import type { Principal } from '../services/tokens.ts';
import type { Http } from './http.ts';

/** Requests per token per minute, by the token's environment; 0 is no limit. */
export interface RateLimits {
  production: number;
  sandbox: number;
}

const WINDOW_MS = 60_000;

/** Public routes (no principal) and environments whose limit is 0 are not counted. */
function limitOf(request: FastifyRequest, limits: RateLimits): number {
  const principal = request.principal as Principal | undefined;
  return principal ? limits[principal.environment] : 0;
}

/**
 * Registers the limit on the authenticated API scope. It runs at preParsing, after the auth hook, so the
 * key is the token id (not the client address) and a body is never read once the token is over its limit.
 * Over the limit: 429 RATE_LIMITED in the error shape, with Retry-After in seconds.
 */
export async function limitPerToken(api: Http, limits: RateLimits): Promise<void> {
  if (limits.production === 0 && limits.sandbox === 0) return;
  await api.register(rateLimit, {
    hook: 'preParsing',
    timeWindow: WINDOW_MS,
    keyGenerator: (request) => (request.principal as Principal | undefined)?.tokenId ?? 'public',
    allowList: (request) => limitOf(request, limits) === 0,
    max: (request) => limitOf(request, limits),
    errorResponseBuilder: (_request, context) =>
      new AppError('RATE_LIMITED', `This token made more than ${context.max} requests in a minute`, {
        limit: context.max,
        retryAfterSeconds: Math.max(1, Math.ceil(context.ttl / 1000)),
      }),
  });
}
