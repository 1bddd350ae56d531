import type { FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.ts';
import type { Principal, TokenService } from '../services/tokens.ts';
import type { Permission } from '../domain/permissions.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The permission a route needs. Every API route names one. */
    permission?: Permission;
    /** Sandbox-only routes answer 403 to production credentials. */
    sandboxOnly?: boolean;
    /** Routes outside the authenticated API (health, the OpenAPI document). */
    public?: boolean;
  }
  interface FastifyRequest {
    principal: Principal;
  }
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** `Authorization: Basic base64(<tokenId>:<clientSecret>)`, split at the last colon (secrets have none). */
export function parseBasic(header: string | undefined): { username: string; secret: string } {
  if (!header) throw new AppError('UNAUTHORIZED', 'Missing Authorization header; send HTTP Basic credentials');
  const [scheme, value] = header.trim().split(/\s+/, 2);
  if (scheme?.toLowerCase() !== 'basic' || !value || !BASE64.test(value)) {
    throw new AppError('UNAUTHORIZED', 'Authorization must be "Basic <base64(tokenId:clientSecret)>"');
  }
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.lastIndexOf(':');
  if (colon <= 0 || colon === decoded.length - 1) {
    throw new AppError('UNAUTHORIZED', 'Authorization credential must be tokenId:clientSecret');
  }
  return { username: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

export function makeAuthHook(tokens: TokenService) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    const config = request.routeOptions.config;
    if (config.public) return;
    const { username, secret } = parseBasic(request.headers.authorization);
    const principal = await tokens.authenticate(username, secret);
    request.principal = principal;
    const needed = config.permission;
    if (!needed) throw new Error(`route ${request.routeOptions.url} declares no permission`);
    if (!principal.permissions.has(needed)) {
      throw new AppError('FORBIDDEN', `This token lacks the ${needed} permission`, { permission: needed });
    }
    if (config.sandboxOnly && principal.environment !== 'sandbox') {
      throw new AppError('FORBIDDEN', 'Sandbox endpoints cannot be called with production credentials');
    }
  };
}
