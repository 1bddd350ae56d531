// Home: what the platform holds, what is in flight, what failed lately, and payments per day.
import type { FastifyInstance } from 'fastify';
import { scopeNowMs } from '../../context.ts';
import { volumeChart } from '../chart.ts';
import { need, type Screens } from '../render.ts';

const CHART_DAYS = 14;

export function homeScreen(app: FastifyInstance, { services, overview, page }: Screens): void {
  app.get('/', { schema: { hide: true } }, async (req, reply) => {
    need(req, 'VIEW');
    const scope = req.principal;
    const nowMs = scopeNowMs(services.ctx, scope);
    const [platformAccounts, customerTotals, inFlight, failures, days, backlog] = await Promise.all([
      services.internalAccounts.listPlatformAccounts(scope, {}),
      overview.customerBalances(scope),
      overview.inFlight(scope),
      services.transactions.list(scope, { status: 'FAILED' }, { limit: 5, order: 'desc' }),
      overview.dailyVolume(scope, nowMs, CHART_DAYS),
      overview.backlog(scope),
    ]);
    return page(req, reply, 'home', {
      title: 'Home',
      nav: 'home',
      platformAccounts,
      customerTotals,
      inFlight,
      failures: failures.data,
      chart: volumeChart(days),
      chartDays: CHART_DAYS,
      backlog,
    });
  });
}
