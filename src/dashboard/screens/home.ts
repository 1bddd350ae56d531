// Home: what the platform holds, what is in flight, what failed lately, payments per day, and the last
// ledger check of the signed-in platform environment (with a button that runs one now).
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services/index.ts';
import { LEDGER_CHECK_EVERY_MS, type OverviewService } from '../../services/overview.ts';
import type { Principal } from '../../services/tokens.ts';
import { volumeChart } from '../chart.ts';
import { done, need, type Screens } from '../render.ts';

const CHART_DAYS = 14;
/** A check older than this may be behind the payments made since (the worker checks on its own period). */
const BEHIND_AFTER_MS = 60_000;

/**
 * The last ledger check, read as it is: checking on the way would read the platform's whole ledger in the
 * page's request (test/foundation/history-reads.test.ts). The dashboard's own payments bring a small
 * ledger's check up to date as they are made (sandbox.ts); an older check says it may be behind.
 */
async function currentLedgerCheck(services: Services, overview: OverviewService, scope: Principal) {
  const check = await overview.lastLedgerCheck(scope);
  return { check, behind: !check || services.clocks.wallNowMs() - check.checkedAtMs > BEHIND_AFTER_MS };
}

export function homeScreen(app: FastifyInstance, { services, page }: Screens): void {
  const { overview, clocks } = services;
  app.get('/', { schema: { hide: true } }, async (req, reply) => {
    need(req, 'VIEW');
    const scope = req.principal;
    const nowMs = clocks.scopeNowMs(scope);
    const [platformAccounts, customerTotals, inFlight, failures, days, backlog, ledger] = await Promise.all([
      services.internalAccounts.listPlatformAccounts(scope, {}),
      overview.customerBalances(scope),
      overview.inFlight(scope),
      services.transactions.list(scope, { status: 'FAILED' }, { limit: 5, order: 'desc' }),
      overview.dailyVolume(scope, nowMs, CHART_DAYS),
      overview.backlog(scope),
      currentLedgerCheck(services, overview, scope),
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
      ledgerCheck: ledger.check,
      ledgerBehind: ledger.behind,
      // The check's time is real time: its "n minutes ago" is measured against the wall clock, not the
      // sandbox clock the rest of the page uses.
      wallNowMs: clocks.wallNowMs(),
      ledgerCheckEveryMinutes: LEDGER_CHECK_EVERY_MS / 60_000,
    });
  });

  // Changes no money and shows nothing new to the token: a VIEW token may ask for it. The claim in
  // ledger/checks.ts runs at most one check of a scope at a time, however often it is asked.
  app.post('/ledger-check', { schema: { hide: true } }, async (req, reply) => {
    need(req, 'VIEW');
    const check = await overview.checkLedgerNow(req.principal);
    if (!check) return done(req, reply, '/dashboard', 'A ledger check is already running; reload in a moment.');
    const found = check.violationCount;
    return found === 0
      ? done(req, reply, '/dashboard', `Ledger balanced: ${check.entries} entries checked.`)
      : done(req, reply, '/dashboard', `The ledger check found ${found} problem${found === 1 ? '' : 's'}.`, 'bad');
  });
}
