// Every page goes through `page`: the layout's common data (who is signed in, what they may do, the form
// token, the formatting helpers and the scope's "now" for relative times) is added here once.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.ts';
import type { Clocks, Services } from '../services/index.ts';
import type { Ctx } from '../context.ts';
import type { Permission } from '../domain/permissions.ts';
import { format } from './format.ts';
import { makePlatformNames } from './platform-names.ts';

export interface Flash {
  tone: 'ok' | 'bad';
  text: string;
}

declare module '@fastify/secure-session' {
  interface SessionData {
    tokenId: string;
    secret: string;
    /** Wall-clock ms after which the session no longer signs anyone in. */
    expiresAt: number;
    flash: Flash;
  }
}

/**
 * The screens of the navigation bar, in order; sandbox only shows for sandbox tokens, connectors (the rails
 * production payments go to) only for production ones.
 */
export const NAV = [
  { id: 'home', label: 'Home', href: '/dashboard' },
  { id: 'transactions', label: 'Transactions', href: '/dashboard/transactions' },
  { id: 'quotes', label: 'Quotes', href: '/dashboard/quotes' },
  { id: 'customers', label: 'Customers', href: '/dashboard/customers' },
  { id: 'webhooks', label: 'Webhooks', href: '/dashboard/webhooks' },
  { id: 'tokens', label: 'API tokens', href: '/dashboard/tokens' },
  { id: 'connectors', label: 'Connectors', href: '/dashboard/connectors', productionOnly: true },
  { id: 'reconciliation', label: 'Reconciliation', href: '/dashboard/reconciliation', productionOnly: true },
  { id: 'sandbox', label: 'Sandbox', href: '/dashboard/sandbox', sandboxOnly: true },
] as const;

export type Page = (
  req: FastifyRequest,
  reply: FastifyReply,
  template: string,
  data: { title: string; nav?: string } & Record<string, unknown>,
) => Promise<FastifyReply>;

/** The signed-in principal, or undefined on the sign-in page. */
function principalOf(req: FastifyRequest) {
  return (req as { principal?: FastifyRequest['principal'] }).principal;
}

export function makePage(clocks: Clocks, ctx: Ctx): Page {
  const platformName = makePlatformNames(ctx);
  return async (req, reply, template, data) => {
    const me = principalOf(req);
    // A request refused before its session was read (an over-long URL) still gets its error page.
    const session = (req as { session?: FastifyRequest['session'] }).session;
    const flash = session?.get('flash');
    if (flash) session?.set('flash', undefined);
    const can = (permission: Permission) => me?.permissions.has(permission) ?? false;
    const nowMs = me ? clocks.scopeNowMs(me) : clocks.wallNowMs();
    reply.header('cache-control', 'no-store').type('text/html; charset=utf-8');
    return reply.view(template, {
      nav: '',
      ...data,
      me,
      platformName: me ? await platformName(me.platformId) : '',
      can,
      flash,
      navItems: NAV.filter(
        (n) =>
          (!('sandboxOnly' in n) || me?.environment === 'sandbox') &&
          (!('productionOnly' in n) || me?.environment === 'production'),
      ),
      csrf: session ? reply.generateCsrf() : '',
      f: format,
      nowMs,
      path: req.url,
    });
  };
}

/** What every screen is built from. */
export interface Screens {
  services: Services;
  page: Page;
}

/** Refuses the action unless the signed-in token holds `permission`. */
export function need(req: FastifyRequest, permission: Permission): void {
  if (!req.principal.permissions.has(permission))
    throw new AppError('FORBIDDEN', `This needs a token with the ${permission} permission`, { permission });
}

/** After a form: a message for the next page, and a 303 so a reload does not post again. */
export function done(req: FastifyRequest, reply: FastifyReply, to: string, text: string, tone: Flash['tone'] = 'ok') {
  req.session.set('flash', { tone, text });
  return reply.redirect(to, 303);
}
