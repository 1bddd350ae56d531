// Home: what the platform holds, what is in flight, what failed lately, payments per day, and the last
// ledger check of the signed-in platform environment (with a button that runs one now).
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services/index.ts';
import { LEDGER_CHECK_EVERY_MS, type OverviewService } from '../../services/overview.ts';
import type { Principal } from '../../services/tokens.ts';
import { volumeChart } from '../chart.ts';
import { done, need, type Screens } from '../render.ts';

const CHART_DAYS = 14;
/**
 * A ledger of up to this many entries is checked again when Home loads and money may have moved since
 * its last check: tens of milliseconds (ledger/checks.ts measured 0.7-0.9 s for 200,000 entries), where
 * a bigger one keeps the worker's periodic check and says that it may be behind.
 */
const RECHECK_ON_LOAD_ENTRIES = 10_000;
/** A check older than this may be behind even without a newer payment (a sandbox funding, say). */
const RECHECK_AFTER_MS = 60_000;

/**
 * The last ledger check, brought up to date on the way for a small ledger, and whether the one shown may
 * predate the latest payment: a payment changed after it was made (both on the scope's clock).
 */
async function currentLedgerCheck(services: Services, overview: OverviewService, scope: Principal) {
  const [last, latest] = await Promise.all([
    overview.lastLedgerCheck(scope),
    services.transactions.list(scope, {}, { limit: 1, order: 'desc' }),
  ]);
  const changedAtMs = latest.data[0] ? Date.parse(latest.data[0].updatedAt) : 0;
  const behind = (check: typeof last) =>
    !check ||
    changedAtMs > check.checkedAtMs + (scope.clockOffsetMs ?? 0) ||
    services.clocks.wallNowMs() - check.checkedAtMs > RECHECK_AFTER_MS;
  if (!behind(last)) return { check: last, behind: false };
  if (last && last.entries > RECHECK_ON_LOAD_ENTRIES) return { check: last, behind: true };
  const fresh = (await overview.checkLedgerNow(scope)) ?? last;
  return { check: fresh, behind: fresh === last };
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
