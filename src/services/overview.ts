// Read-only summaries for the dashboard: what the API spreads over many calls (or does not expose, such
// as a payment's ledger postings), gathered per scope. Every query names the scope's platform and
// environment, so no screen can show another tenant's rows. The one write is the ledger check's record of
// itself (ledger/checks.ts).
import { sql } from 'kysely';
import { iso } from '../domain/clock.ts';
import type { TransactionStatus } from '../domain/transactions.ts';
import type { Ctx, Scope } from '../context.ts';
import { checkLedgerNow, lastLedgerCheck, type LedgerCheck } from '../ledger/checks.ts';

import { COUNT_LIMIT } from '../domain/paging.ts';
import { countUpTo } from '../store/paging.ts';
import { DELIVERY_FAILED } from '../webhooks/event-log.ts';

/** How often each scope's ledger is checked; the dashboard says it beside the last check. */
export { LEDGER_CHECK_EVERY_MS } from '../ledger/checks.ts';

export interface PostingLine {
  entryId: string;
  kind: string;
  createdAt: string;
  line: number;
  accountId: string;
  /** CUSTOMER, PLATFORM, SETTLEMENT, IN_FLIGHT…: what the account is, for a reader. */
  accountKind: string | null;
  currency: string;
  /** Smallest unit; positive credits the account. */
  amount: bigint;
}

export interface CurrencyTotal {
  currency: string;
  count: number;
  amount: bigint;
}

/** One day of payments by outcome, in the scope's time (UTC days). */
export interface DayVolume {
  day: string;
  completed: number;
  failed: number;
  open: number;
}

const OPEN = ['PENDING', 'PROCESSING'] as const;
const FAILED = ['FAILED', 'REJECTED', 'EXPIRED'] as const;
const STATUSES: readonly TransactionStatus[] = [...OPEN, 'COMPLETED', ...FAILED];
const DAY_MS = 86_400_000;

/** Sums and counts come back as number, bigint or numeric text depending on the engine. */
const big = (value: string | number | bigint | null | undefined): bigint => BigInt(value ?? 0);

/** The journal entries that reference `reference` (a transaction id), one line per posting, oldest first. */
async function postingsOf(ctx: Ctx, scope: Scope, reference: string): Promise<PostingLine[]> {
  const rows = await ctx.store.db
    .selectFrom('journal_entries')
    .innerJoin('postings', 'postings.entry_id', 'journal_entries.id')
    .leftJoin('ledger_accounts', 'ledger_accounts.id', 'postings.account_id')
    .select([
      'journal_entries.id as entryId',
      'journal_entries.kind',
      'journal_entries.created_at',
      'postings.line',
      'postings.account_id',
      'ledger_accounts.kind as accountKind',
      'postings.currency',
      'postings.amount',
    ])
    .where('journal_entries.platform_id', '=', scope.platformId)
    .where('journal_entries.environment', '=', scope.environment)
    .where('journal_entries.reference', '=', reference)
    .orderBy('journal_entries.created_at')
    .orderBy('journal_entries.id')
    .orderBy('postings.line')
    .execute();
  return rows.map((r) => ({
    entryId: r.entryId,
    kind: r.kind,
    createdAt: iso(r.created_at),
    line: Number(r.line),
    accountId: r.account_id,
    accountKind: r.accountKind,
    currency: r.currency,
    amount: big(r.amount),
  }));
}

/** Payments not yet settled or failed, by the currency they were sent in. */
async function inFlight(ctx: Ctx, scope: Scope): Promise<CurrencyTotal[]> {
  const rows = await ctx.store.db
    .selectFrom('transactions')
    .select(['sent_currency', (eb) => eb.fn.countAll().as('count'), (eb) => eb.fn.sum('sent_amount').as('amount')])
    .where('platform_id', '=', scope.platformId)
    .where('environment', '=', scope.environment)
    .where('status', 'in', OPEN)
    .groupBy('sent_currency')
    .orderBy('sent_currency')
    .execute();
  return rows.map((r) => ({ currency: r.sent_currency, count: Number(r.count), amount: big(r.amount) }));
}

/** What the platform's customers hold, by currency. */
async function customerBalances(ctx: Ctx, scope: Scope): Promise<CurrencyTotal[]> {
  const rows = await ctx.store.db
    .selectFrom('ledger_accounts')
    .select(['currency', (eb) => eb.fn.countAll().as('count'), (eb) => eb.fn.sum('balance').as('amount')])
    .where('platform_id', '=', scope.platformId)
    .where('environment', '=', scope.environment)
    .where('kind', '=', 'CUSTOMER')
    .groupBy('currency')
    .orderBy('currency')
    .execute();
  return rows.map((r) => ({ currency: r.currency, count: Number(r.count), amount: big(r.amount) }));
}

/**
 * Payments created in the `days` days up to `nowMs` (scope time), counted per UTC day and outcome by the
 * database. One branch per status, each a range of the (platform, environment, status, created_at) index
 * read without a table row: the cost follows the payments in the window, never the history before it.
 * (Given all statuses in one IN list, PostgreSQL walks the platform's whole index instead.)
 */
async function dailyVolume(ctx: Ctx, scope: Scope, nowMs: number, days: number): Promise<DayVolume[]> {
  const firstDay = Math.floor(nowMs / DAY_MS) - (days - 1);
  const { db } = ctx.store;
  const day = sql<number | bigint>`created_at / ${sql.lit(DAY_MS)}`;
  const ofStatus = (status: TransactionStatus) =>
    db
      .selectFrom('transactions')
      .select([sql.lit(status).as('status'), day.as('day'), (eb) => eb.fn.countAll().as('count')])
      .where('platform_id', '=', scope.platformId)
      .where('environment', '=', scope.environment)
      .where('status', '=', status)
      .where('created_at', '>=', BigInt(firstDay * DAY_MS))
      .groupBy(day);
  const [first, ...rest] = STATUSES.map(ofStatus);
  const rows = await rest.reduce((query, branch) => query.unionAll(branch), first!).execute();
  const byDay: DayVolume[] = Array.from({ length: days }, (_, i) => ({
    day: iso((firstDay + i) * DAY_MS).slice(0, 10),
    completed: 0,
    failed: 0,
    open: 0,
  }));
  for (const row of rows) {
    const slot = byDay[Number(row.day) - firstDay];
    if (!slot) continue;
    const count = Number(row.count);
    if (row.status === 'COMPLETED') slot.completed += count;
    else if ((FAILED as readonly string[]).includes(row.status)) slot.failed += count;
    else slot.open += count;
  }
  return byDay;
}

/**
 * Jobs of this scope waiting or running, and webhook events whose delivery gave up, each counted up to
 * COUNT_LIMIT + 1 (the page says "more than" past the limit): a backlog of a million costs no more to show
 * than one of a thousand, and the failed deliveries are read off their own partial index.
 */
async function backlog(ctx: Ctx, scope: Scope): Promise<{ queuedJobs: number; failedDeliveries: number }> {
  const { db } = ctx.store;
  const [queuedJobs, failedDeliveries] = await Promise.all([
    countUpTo(
      db
        .selectFrom('jobs')
        .where('platform_id', '=', scope.platformId)
        .where('environment', '=', scope.environment)
        .where('status', 'in', ['pending', 'running']),
      COUNT_LIMIT + 1,
    ),
    countUpTo(
      db
        .selectFrom('events')
        .where('platform_id', '=', scope.platformId)
        .where('environment', '=', scope.environment)
        .where('delivery_state', '=', DELIVERY_FAILED),
      COUNT_LIMIT + 1,
    ),
  ]);
  return { queuedJobs, failedDeliveries };
}

/** What the dashboard's screens read beyond the API's resources. Raises nothing: an empty scope reads as zeros. */
export interface OverviewService {
  /** The ledger postings of one reference (a payment's id), in order. */
  postingsOf(scope: Scope, reference: string): Promise<PostingLine[]>;
  /** Payments not yet settled or failed, by the currency they were sent in. */
  inFlight(scope: Scope): Promise<CurrencyTotal[]>;
  /** What customers' internal accounts hold, per currency. */
  customerBalances(scope: Scope): Promise<CurrencyTotal[]>;
  /** Each of the last `days` days' volume up to `nowMs` (the platform's time). */
  dailyVolume(scope: Scope, nowMs: number, days: number): Promise<DayVolume[]>;
  /** Jobs waiting or running and events whose delivery failed, each counted up to COUNT_LIMIT + 1. */
  backlog(scope: Scope): Promise<{ queuedJobs: number; failedDeliveries: number }>;
  /** The scope's last ledger check (posting and balance invariants), undefined before the first. */
  lastLedgerCheck(scope: Scope): Promise<LedgerCheck | undefined>;
  /** Checks the scope's ledger now and records it; undefined when a check of it is already running. */
  checkLedgerNow(scope: Scope): Promise<LedgerCheck | undefined>;
}

export function makeOverviewService(ctx: Ctx): OverviewService {
  return {
    postingsOf: (scope, reference) => postingsOf(ctx, scope, reference),
    inFlight: (scope) => inFlight(ctx, scope),
    customerBalances: (scope) => customerBalances(ctx, scope),
    dailyVolume: (scope, nowMs, days) => dailyVolume(ctx, scope, nowMs, days),
    backlog: (scope) => backlog(ctx, scope),
    lastLedgerCheck: (scope) => lastLedgerCheck(ctx.store, scope),
    checkLedgerNow: (scope) => checkLedgerNow(ctx, scope),
  };
}
