// The dashboard: server-rendered pages under /dashboard, served by the service itself. It has its own
// encapsulated Fastify context (form bodies, a sealed session cookie, CSRF tokens, HTML error pages), so
// none of it touches the JSON API. Screens call the services directly, always with the signed-in
// token's scope.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyFormbody from '@fastify/formbody';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifyView from '@fastify/view';
import { Eta } from 'eta';
import { AppError } from '../domain/errors.ts';
import type { Services } from '../services/index.ts';
import { makePage, type Page, type Screens } from './render.ts';
import { makeSignedIn, sessionRoutes, useSessions } from './session.ts';
import { homeScreen } from './screens/home.ts';
import { transactionScreens } from './screens/transactions.ts';
import { tokenScreens } from './screens/tokens.ts';
import { sandboxScreens } from './screens/sandbox.ts';
import { sandboxTriggerScreens } from './screens/sandbox-triggers.ts';
import { sandboxWorkspaceScreens } from './screens/sandbox-workspace.ts';
import { sandboxDiagnosticScreens } from './screens/sandbox-diagnostics.ts';
import { webhookScreens } from './screens/webhooks.ts';
import { quoteScreens } from './screens/quotes.ts';
import { customerScreens } from './screens/customers.ts';
import { customerFormScreens } from './screens/customer-forms.ts';
import { connectorScreens } from './screens/connectors.ts';
import { reconciliationScreens } from './screens/reconciliation.ts';

const ASSETS: Record<string, string> = {
  'dashboard.css': 'text/css; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
};

/** Pages allow only this server's own styles and script, no frames, and forms only back to it. */
const CSP =
  "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; form-action 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'";

/** Requests that change nothing; every other method needs the form's CSRF token. */
const SAFE_METHODS = new Set(['GET', 'HEAD']);

function serveAssets(app: FastifyInstance): void {
  const files = new Map(
    Object.entries(ASSETS).map(([name, type]) => [
      name,
      { type, body: readFileSync(join(import.meta.dirname, 'assets', name)) },
    ]),
  );
  for (const [name, file] of files) {
    app.get(`/assets/${name}`, { schema: { hide: true } }, async (_req, reply) =>
      reply.type(file.type).header('cache-control', 'public, max-age=300').send(file.body),
    );
  }
}

/** What went wrong, as a status and a sentence for the error page; only a real fault is a 500. */
function describe(err: FastifyError | Error): { status: number; message: string } {
  if (err instanceof AppError) return { status: err.status, message: err.message };
  const fe = err as FastifyError;
  if (fe.validation) return { status: 400, message: fe.message };
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    const csrf = fe.code?.startsWith('FST_CSRF');
    return {
      status: fe.statusCode,
      message: csrf
        ? 'This form has expired or did not come from this dashboard. Reload the page and try again.'
        : fe.message,
    };
  }
  return { status: 500, message: 'Something went wrong on the server; the log has the details.' };
}

function answerInHtml(app: FastifyInstance, page: Page): void {
  const errorPage = async (req: FastifyRequest, reply: FastifyReply, status: number, message: string) => {
    reply.status(status);
    return page(req, reply, 'error', { title: status === 404 ? 'Not found' : 'Not possible', status, message });
  };
  app.setErrorHandler(async (err: FastifyError, req, reply) => {
    const { status, message } = describe(err);
    if (status >= 500) req.log.error({ err }, 'dashboard request failed');
    else req.log.info({ status, code: err.code }, 'dashboard request refused');
    return errorPage(req, reply, status, message);
  });
  app.setNotFoundHandler(async (req, reply) =>
    errorPage(req, reply, 404, `There is no page at ${req.url.split('?')[0]}.`),
  );
}

export function dashboard(services: Services) {
  return async function dashboardPlugin(app: FastifyInstance): Promise<void> {
    const { ctx, tokens } = services;
    app.addHook('onSend', async (_req, reply) => {
      reply.header('content-security-policy', CSP);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'same-origin');
      reply.header('x-frame-options', 'DENY');
    });
    await app.register(fastifyFormbody, { bodyLimit: 64 * 1024 });
    await useSessions(app, ctx);
    await app.register(fastifyCsrf, { sessionPlugin: '@fastify/secure-session' });
    // Every form post carries the token; one without it is a 403 before any handler runs.
    app.addHook('preHandler', (req, reply, next) =>
      SAFE_METHODS.has(req.method) ? next() : app.csrfProtection(req, reply, next),
    );
    await app.register(fastifyView, {
      engine: { eta: new Eta() },
      templates: join(import.meta.dirname, 'views'),
      production: true,
    });
    const page = makePage(services.clocks, ctx);
    answerInHtml(app, page);
    serveAssets(app);
    sessionRoutes(app, ctx, tokens, page);

    const screens: Screens = { services, page };
    await app.register(async (signed) => {
      signed.addHook('preHandler', makeSignedIn(ctx, tokens));
      homeScreen(signed, screens);
      transactionScreens(signed, screens);
      tokenScreens(signed, screens);
      sandboxScreens(signed, screens);
      sandboxTriggerScreens(signed, screens);
      sandboxWorkspaceScreens(signed, screens);
      sandboxDiagnosticScreens(signed, screens);
      webhookScreens(signed, screens);
      quoteScreens(signed, screens);
      customerScreens(signed, screens);
      customerFormScreens(signed, screens);
      connectorScreens(signed, screens);
      reconciliationScreens(signed, screens);
    });
  };
}
