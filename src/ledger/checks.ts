// The ledger check a platform's dashboard shows: verifyPostings over one platform environment, its last
// result kept in ledger_checks with its time.
//
// Why recorded and not run on each page load: the check reads every journal entry and every tracked
// balance's postings of the scope, so it grows with the scope's history. Measured on one scope of 200,000
// two-posting entries (2 shared cores): 0.7-0.9 s on SQLite and 0.4-0.55 s on PostgreSQL, against under
// 2 ms for one of the home page's other queries (a small scope in the same database: 1 ms and 11 ms). Run per
// page load it would make Home as slow as the biggest ledger, and anyone reloading Home would load the
// database. So every worker process runs due checks as upkeep (a scope is due LEDGER_CHECK_EVERY_MS after
// its last check), Home shows the last result with its time, and Home's "Check now" runs one for the
// signed-in scope on request. A claim on the scope's row keeps two processes (or two
// clicks) from running the same check at once.
import { sql } from 'kysely';
import { type Ctx, type Scope, wallNowMs } from '../context.ts';
import type { Store } from '../store/db.ts';
import { verifyPostings, type LedgerScope, type Violation } from './verify.ts';

/** How old a scope's last check may grow before upkeep checks it again. */
export const LEDGER_CHECK_EVERY_MS = 10 * 60_000;
/** How often a worker process looks for scopes whose check is due. */
export const LEDGER_CHECK_PASS_EVERY_MS = 60_000;
/** A check started this long ago that never finished (its process died) may be taken over. */
const ABANDONED_AFTER_MS = 5 * 60_000;
/** One upkeep pass starts no new check after this long, and looks at no more scopes than this. */
const PASS_BUDGET_MS = 5_000;
const PASS_MAX_SCOPES = 50;
/** A broken ledger could list a violation per entry; the page needs the first ones and the count. */
const KEPT_VIOLATIONS = 50;

export interface LedgerCheck {
  /** Wall-clock ms. */
  checkedAtMs: number;
  durationMs: number;
  /** Journal entries of the scope when it was checked. */
  entries: number;
  /** At most KEPT_VIOLATIONS of them; `violationCount` has them all. */
  violations: Violation[];
  violationCount: number;
}

const keyOf = (scope: LedgerScope) => ({ platform_id: scope.platformId, environment: scope.environment });

/** The scope's last finished check, or undefined when none has finished yet. */
export async function lastLedgerCheck(store: Store, scope: LedgerScope): Promise<LedgerCheck | undefined> {
  const row = await store.db
    .selectFrom('ledger_checks')
    .selectAll()
    .where('platform_id', '=', scope.platformId)
    .where('environment', '=', scope.environment)
    .executeTakeFirst();
  if (!row || row.checked_at === null || row.violations === null) return undefined;
  const stored = JSON.parse(row.violations) as { count: number; first: Violation[] };
  return {
    checkedAtMs: Number(row.checked_at),
    durationMs: Number(row.duration_ms ?? 0n),
    entries: Number(row.entries ?? 0n),
    violations: stored.first,
    violationCount: stored.count,
  };
}

/**
 * Takes the scope's check for this process: false when another one is running it right now (started, not
 * finished, not abandoned), or, given `dueBeforeMs`, when its last check finished after that time.
 */
async function claim(store: Store, scope: LedgerScope, nowMs: number, dueBeforeMs?: number): Promise<boolean> {
  await store.db
    .insertInto('ledger_checks')
    .values({ ...keyOf(scope), started_at: 0n, checked_at: null, duration_ms: null, entries: null, violations: null })
    .onConflict((oc) => oc.columns(['platform_id', 'environment']).doNothing())
    .execute();
  const claimed = await store.db
    .updateTable('ledger_checks')
    .set({ started_at: BigInt(nowMs) })
    .where('platform_id', '=', scope.platformId)
    .where('environment', '=', scope.environment)
    .where((eb) =>
      eb.or([
        eb('started_at', '<', BigInt(nowMs - ABANDONED_AFTER_MS)),
        eb.and([eb('checked_at', 'is not', null), eb('checked_at', '>=', eb.ref('started_at'))]),
      ]),
    )
    .$if(dueBeforeMs !== undefined, (q) =>
      q.where((eb) => eb.or([eb('checked_at', 'is', null), eb('checked_at', '<', BigInt(dueBeforeMs!))])),
    )
    .executeTakeFirst();
  return claimed.numUpdatedRows === 1n;
}

async function runCheck(ctx: Ctx, scope: LedgerScope, startedAtMs: number): Promise<LedgerCheck> {
  const { store } = ctx;
  const counted = await store.db
    .selectFrom('journal_entries')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('platform_id', '=', scope.platformId)
    .where('environment', '=', scope.environment)
    .executeTakeFirst();
  const violations = await verifyPostings(store, scope);
  const checkedAtMs = wallNowMs(ctx);
  const check: LedgerCheck = {
    checkedAtMs,
    durationMs: Math.max(0, checkedAtMs - startedAtMs),
    entries: Number(counted?.n ?? 0),
    violations: violations.slice(0, KEPT_VIOLATIONS),
    violationCount: violations.length,
  };
  await store.db
    .updateTable('ledger_checks')
    .set({
      checked_at: BigInt(check.checkedAtMs),
      duration_ms: BigInt(check.durationMs),
      entries: BigInt(check.entries),
      violations: JSON.stringify({ count: check.violationCount, first: check.violations }),
    })
    .where('platform_id', '=', scope.platformId)
    .where('environment', '=', scope.environment)
    .where('started_at', '=', BigInt(startedAtMs))
    .execute();
  return check;
}

/**
 * Checks the scope now and records the result; when another process is checking it at this moment, waits
 * for nothing and answers undefined (its result will be the last one).
 */
export async function checkLedgerNow(ctx: Ctx, scope: Scope): Promise<LedgerCheck | undefined> {
  const startedAtMs = wallNowMs(ctx);
  if (!(await claim(ctx.store, scope, startedAtMs))) return undefined;
  return runCheck(ctx, scope, startedAtMs);
}

/**
 * Upkeep: checks the scopes whose last check is older than LEDGER_CHECK_EVERY_MS (or that have none),
 * oldest first, within PASS_BUDGET_MS. Safe in several processes at once: each scope is claimed first.
 * Answers how many scopes it checked.
 */
export async function checkDueLedgers(ctx: Ctx): Promise<number> {
  const { db } = ctx.store;
  const passStartMs = wallNowMs(ctx);
  const dueBeforeMs = passStartMs - LEDGER_CHECK_EVERY_MS;
  const due = await db
    .selectFrom('platform_configs')
    .leftJoin('ledger_checks', (join) =>
      join
        .onRef('ledger_checks.platform_id', '=', 'platform_configs.platform_id')
        .onRef('ledger_checks.environment', '=', 'platform_configs.environment'),
    )
    .select(['platform_configs.platform_id', 'platform_configs.environment', 'ledger_checks.checked_at'])
    .where((eb) =>
      eb.or([eb('ledger_checks.checked_at', 'is', null), eb('ledger_checks.checked_at', '<', BigInt(dueBeforeMs))]),
    )
    // Never-checked scopes first on both engines (NULL sorts first on SQLite, last on PostgreSQL).
    .orderBy(sql`coalesce(ledger_checks.checked_at, 0)`)
    .limit(PASS_MAX_SCOPES)
    .execute();
  let checked = 0;
  for (const row of due) {
    const nowMs = wallNowMs(ctx);
    if (nowMs - passStartMs > PASS_BUDGET_MS) break;
    const scope = { platformId: row.platform_id, environment: row.environment };
    if (!(await claim(ctx.store, scope, nowMs, dueBeforeMs))) continue;
    await runCheck(ctx, scope, nowMs);
    checked++;
  }
  return checked;
}
