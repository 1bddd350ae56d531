// Reconciliation (production sessions only: sandbox payments never reach a bank): the signed-in platform's
// payments to a connector in a span of days, each with its file, the bank's status report and its entry, and
// what does not agree; as a table, or CSV to download. The connector's own differences (entries for no
// payment, credits that funded nothing) belong to the operator: counted here, listed by the operator API.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import { csvLines, parseSpan, type Reconciliation } from '../../domain/reconciliation.ts';
import { reconcile } from '../../services/bank/reconcile.ts';
import { day, fieldsOf, text } from '../form.ts';
import { need, type Screens } from '../render.ts';
import type { Services } from '../../services/index.ts';

const hide = { schema: { hide: true } };
const WEEK_MS = 7 * 86_400_000;

function productionOnly(req: FastifyRequest): void {
  if (req.principal.environment !== 'production')
    throw new AppError('FORBIDDEN', 'Sandbox payments never reach a bank; sign in with a production token');
}

/** The span and connector the form asks for: the last seven days by default. */
function queryOf(req: FastifyRequest, nowMs: number) {
  const q = fieldsOf(req.query);
  const today = new Date(nowMs).toISOString().slice(0, 10);
  const from = day(q, 'from')?.value ?? new Date(nowMs - WEEK_MS).toISOString().slice(0, 10);
  const to = day(q, 'to')?.value ?? today;
  const span = parseSpan(from, to);
  if ('field' in span) throw new AppError('INVALID_INPUT', `${span.field} ${span.message}`, { field: span.field });
  return { from, to, span, connector: text(q, 'connector', false, 200) };
}

async function reportFor(services: Services, req: FastifyRequest, nowMs: number) {
  const query = queryOf(req, nowMs);
  const report = await reconcile(services.ctx, {
    ...query.span,
    connector: query.connector,
    platformId: req.principal.platformId,
  });
  return { query, report };
}

/** The platform's share of the report: its payments, and only a count of the connector's own differences. */
function platformShare(report: Reconciliation): Reconciliation & { connectorDifferences: number } {
  const connectorDifferences = report.differences.filter((d) => d.transactionId === undefined).length;
  const differences = report.differences.filter((d) => d.transactionId !== undefined);
  return {
    ...report,
    differences,
    totals: { ...report.totals, differences: differences.length },
    connectorDifferences,
  };
}

export function reconciliationScreens(app: FastifyInstance, { services, page }: Screens): void {
  const connectors = () => Object.keys(services.ctx.config.connectors.banks).sort();

  app.get('/reconciliation', hide, async (req, reply) => {
    need(req, 'VIEW');
    productionOnly(req);
    const nowMs = services.ctx.clock.nowMs();
    const { query, report } = await reportFor(services, req, nowMs);
    const csv = new URLSearchParams({
      from: query.from,
      to: query.to,
      ...(query.connector ? { connector: query.connector } : {}),
    });
    return page(req, reply, 'reconciliation', {
      title: 'Reconciliation',
      nav: 'reconciliation',
      query,
      connectors: connectors(),
      report: platformShare(report),
      csvUrl: `/dashboard/reconciliation.csv?${csv.toString()}`,
    });
  });

  app.get('/reconciliation.csv', hide, async (req, reply) => {
    need(req, 'VIEW');
    productionOnly(req);
    const { query, report } = await reportFor(services, req, services.ctx.clock.nowMs());
    const name = `reconciliation-${query.from}-${query.to}${query.connector ? `-${query.connector}` : ''}.csv`;
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${name.replace(/[^\w.-]/g, '_')}"`)
      .send(`${[...csvLines(platformShare(report))].join('\r\n')}\r\n`);
  });
}
