// Connectors (production sessions only: sandbox payments never reach one): the routes CONNECTORS_FILE gives
// the signed-in platform, whether each connector they reach answers its health check, the payments that wait
// for an answer or a person (settled or failed from here with the operator's credential), the latest rail
// events and what each connector did, counted.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MANUAL_CONNECTOR, type ConnectorRoute } from '../../domain/connector-routes.ts';
import { AppError } from '../../domain/errors.ts';
import { FAILURE_REASONS } from '../../domain/failure-reasons.ts';
import { attentionOf, countsOf, recentEventsOf } from '../../services/connectors/views.ts';
import { settleMany, summarize, type SettlementLine } from '../../services/settlement.ts';
import { choice, type Fields, fieldsOf } from '../form.ts';
import { done, need, type Screens } from '../render.ts';
import { operatorEnabled, requireOperator } from '../operator.ts';

const hide = { schema: { hide: true } };
/** The page waits this long for each health check, then shows a connector that has not answered as such. */
export const HEALTH_WAIT_MS = 2_000;
const ATTENTION_ROWS = 100;
const EVENT_ROWS = 50;

function productionOnly(req: FastifyRequest): void {
  if (req.principal.environment !== 'production')
    throw new AppError('FORBIDDEN', 'Sandbox payments never reach a connector; sign in with a production token');
}

/** The routes that reach this platform, and whether a platform's own route hides a currency-wide one. */
function routesFor(routes: readonly ConnectorRoute[], platformId: string) {
  return routes
    .filter((r) => r.platform === undefined || r.platform === platformId)
    .map((r) => ({
      ...r,
      shadowed: r.platform === undefined && routes.some((o) => o.currency === r.currency && o.platform === platformId),
    }));
}

/** The ids the operator ticked: at least one, each a sane length. */
function idsOf(form: Fields): string[] {
  const raw = form.ids;
  const ids = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  if (ids.length === 0) throw new AppError('INVALID_INPUT', 'Tick at least one payment', { field: 'ids' });
  if (ids.length > ATTENTION_ROWS) throw new AppError('INVALID_INPUT', 'Too many payments at once', { field: 'ids' });
  return ids.map((id) => {
    if (typeof id !== 'string' || id.length === 0 || id.length > 200)
      throw new AppError('INVALID_INPUT', 'ids must be transaction ids', { field: 'ids' });
    return id;
  });
}

/** The flash after a settlement run: totals, and the first refusal's reason. */
function reportOf(lines: SettlementLine[]): { text: string; tone: 'ok' | 'bad' } {
  const t = summarize(lines);
  const refused = lines.find((l) => l.result === 'REFUSED');
  const text =
    `The operator moved ${t.COMPLETED + t.FAILED} payment${t.COMPLETED + t.FAILED === 1 ? '' : 's'}: ` +
    `${t.COMPLETED} completed, ${t.FAILED} failed, ${t.REFUSED} refused` +
    (refused?.error ? ` (${refused.id}: ${refused.error.message})` : '') +
    '.';
  return { text, tone: refused ? 'bad' : 'ok' };
}

export function connectorScreens(app: FastifyInstance, { services, page }: Screens): void {
  app.get('/connectors', hide, async (req, reply) => {
    need(req, 'VIEW');
    productionOnly(req);
    const scope = req.principal;
    const { connectors } = services.ctx.config;
    const routes = routesFor(connectors.routes, scope.platformId);
    const names = [...new Set(routes.map((r) => r.connector))].filter((n) => n !== MANUAL_CONNECTOR);
    const [health, attention, events, counts] = await Promise.all([
      services.connectors.check(HEALTH_WAIT_MS),
      attentionOf(services.ctx, scope, ATTENTION_ROWS),
      recentEventsOf(services.ctx, scope, names, EVENT_ROWS),
      countsOf(services.ctx, scope),
    ]);
    return page(req, reply, 'connectors', {
      title: 'Connectors',
      nav: 'connectors',
      routes,
      // Settings the page shows, picked one by one: the loaded connector also holds its secret's key.
      connectors: names.map((name) => {
        const c = connectors.byName[name];
        const settings = c && { type: c.type, url: c.url, timeoutMs: c.timeoutMs, pollIntervalMs: c.pollIntervalMs };
        return { ...settings, name, health: health.find((h) => h.name === name) };
      }),
      attention,
      events,
      counts,
      operator: operatorEnabled(services),
      failureReasons: FAILURE_REASONS,
      healthWaitS: HEALTH_WAIT_MS / 1000,
    });
  });

  // The attention list's payments, settled or failed by the operator (OPERATOR_TOKEN in the form), through
  // the same settlement run as POST /operator/settlements; only the signed-in platform's payments.
  app.post('/connectors/attention', hide, async (req, reply) => {
    const form = fieldsOf(req.body);
    requireOperator(services, form);
    productionOnly(req);
    const action = choice(form, 'action', ['settle', 'fail'] as const, true) ?? 'settle';
    const reason = action === 'fail' ? choice(form, 'reason', FAILURE_REASONS) : undefined;
    const ids = idsOf(form);
    for (const id of ids) await services.transactions.get(req.principal, id);
    const lines: SettlementLine[] = [];
    for await (const line of settleMany(services.ctx, services.transactions, {
      action,
      reason,
      dryRun: false,
      selection: { ids },
    }))
      lines.push(line);
    const { text, tone } = reportOf(lines);
    return done(req, reply, '/dashboard/connectors', text, tone);
  });
}
