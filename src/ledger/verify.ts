import { sql } from 'kysely';
import { eventTypeOf } from '../domain/transactions.ts';
import type { Store } from '../store/db.ts';
import type { Scope } from '../context.ts';

export interface Violation {
  invariant: string;
  detail: string;
}

/** One platform environment, for a check of its own accounts and entries only. */
export type LedgerScope = Pick<Scope, 'platformId' | 'environment'>;

/**
 * Checks the ledger's invariants over the whole database (every platform and environment): those of
 * verifyPostings, then every transaction against the ledger and the event log (verifyTransactions).
 */
export async function verifyLedger(store: Store): Promise<Violation[]> {
  return [...(await verifyPostings(store)), ...(await verifyTransactions(store))];
}

/**
 * The posting and balance invariants, over the whole ledger or, given a scope, over that platform
 * environment's journal entries and accounts only (what its dashboard shows):
 * - every journal entry nets to zero in each currency;
 * - a posting's currency is its account's currency;
 * - every stored balance equals the sum of its account's postings;
 * - no stored balance is negative (CUSTOMER and PLATFORM accounts keep one; system accounts keep 0).
 * A scoped check reads the scope's entries through journal_entries_scope and its balances' postings through
 * postings_account, so its cost follows the size of that scope, not of the database.
 * Sums are cast to bigint so PostgreSQL returns int8 (not numeric) and both engines compare exactly.
 */
export async function verifyPostings(store: Store, scope?: LedgerScope): Promise<Violation[]> {
  return [...(await verifyEntries(store, scope)), ...(await verifyBalances(store, scope))];
}

/** Entries net to zero per currency, and post in their accounts' currencies (see verifyPostings). */
async function verifyEntries(store: Store, scope?: LedgerScope): Promise<Violation[]> {
  const { db } = store;
  const violations: Violation[] = [];
  const entriesOfScope = (s: LedgerScope) =>
    db
      .selectFrom('journal_entries')
      .select('journal_entries.id')
      .where('journal_entries.platform_id', '=', s.platformId)
      .where('journal_entries.environment', '=', s.environment);

  const unbalanced = await db
    .selectFrom('postings')
    .select(['entry_id', 'currency', sql<bigint>`cast(sum(amount) as bigint)`.as('total')])
    .$if(scope !== undefined, (q) => q.where('postings.entry_id', 'in', entriesOfScope(scope!)))
    .groupBy(['entry_id', 'currency'])
    .having(sql`sum(amount)`, '<>', 0)
    .execute();
  for (const r of unbalanced) {
    violations.push({
      invariant: 'entry-balances',
      detail: `journal entry ${r.entry_id} nets ${r.total} ${r.currency}, not 0`,
    });
  }

  const wrongCurrency = await db
    .selectFrom('postings')
    .innerJoin('ledger_accounts', 'ledger_accounts.id', 'postings.account_id')
    .select([
      'postings.entry_id',
      'postings.account_id',
      'postings.currency',
      'ledger_accounts.currency as account_currency',
    ])
    .whereRef('postings.currency', '<>', 'ledger_accounts.currency')
    .$if(scope !== undefined, (q) => q.where('postings.entry_id', 'in', entriesOfScope(scope!)))
    .execute();
  for (const r of wrongCurrency) {
    violations.push({
      invariant: 'posting-currency',
      detail: `entry ${r.entry_id} posts ${r.currency} to ${r.account_id}, a ${r.account_currency} account`,
    });
  }

  return violations;
}

/** Stored balances equal their postings' sum and are not negative (see verifyPostings). */
async function verifyBalances(store: Store, scope?: LedgerScope): Promise<Violation[]> {
  const { db } = store;
  const violations: Violation[] = [];
  // A sum per account, through postings_account: a join on one grouped subquery lets PostgreSQL read every
  // posting of the database for a scope that holds a handful.
  const sums = db
    .selectFrom('ledger_accounts')
    .select([
      'ledger_accounts.id',
      'ledger_accounts.balance',
      (eb) =>
        eb
          .selectFrom('postings')
          .select(sql<bigint>`cast(coalesce(sum(postings.amount), 0) as bigint)`.as('sum'))
          .whereRef('postings.account_id', '=', 'ledger_accounts.id')
          .as('total'),
    ])
    .where('ledger_accounts.kind', 'in', ['CUSTOMER', 'PLATFORM'])
    .$if(scope !== undefined, (q) =>
      q
        .where('ledger_accounts.platform_id', '=', scope!.platformId)
        .where('ledger_accounts.environment', '=', scope!.environment),
    )
    .as('sums');
  const mismatched = await db
    .selectFrom(sums)
    .selectAll()
    .where((eb) => eb('sums.balance', '<>', eb.ref('sums.total')))
    .execute();
  for (const r of mismatched) {
    violations.push({
      invariant: 'balance-equals-postings',
      detail: `account ${r.id} stores ${r.balance} but its postings sum to ${r.total ?? 0}`,
    });
  }

  const negative = await db
    .selectFrom('ledger_accounts')
    .select(['id', 'balance'])
    .where('balance', '<', 0n)
    .$if(scope !== undefined, (q) =>
      q.where('platform_id', '=', scope!.platformId).where('environment', '=', scope!.environment),
    )
    .execute();
  for (const r of negative)
    violations.push({ invariant: 'non-negative-balance', detail: `account ${r.id} has balance ${r.balance}` });
  return violations;
}

/**
 * Checks every transaction against the ledger and the event log:
 * - in flight: what a transaction holds in its IN_FLIGHT account is its amount sent while it is funded and
 *   not finished (or when its refund failed), and zero otherwise — money is never stranded or created;
 * - refunds: a failed, funded payment whose refund completed has exactly one REFUND or RETURN entry, and
 *   one whose refund failed has none;
 * - credits: a payment received for an internal account (transfer-in, incoming UMA payment without an
 *   external deposit account) has exactly one SETTLE entry, crediting that account with the amount
 *   received, once COMPLETED, and none in any other status — the account is credited only on success;
 * - events: the latest status event of every transaction is the one its current status records
 *   (domain/transactions eventTypeOf; a status that records none, such as an incoming PROCESSING, is
 *   not checked against it).
 */
async function verifyTransactions(store: Store): Promise<Violation[]> {
  const { db } = store;
  const violations: Violation[] = [];
  const inFlight = db
    .selectFrom('postings')
    .innerJoin('journal_entries', 'journal_entries.id', 'postings.entry_id')
    .innerJoin('ledger_accounts', 'ledger_accounts.id', 'postings.account_id')
    .where('ledger_accounts.kind', '=', 'IN_FLIGHT')
    .select(['journal_entries.reference', sql<bigint>`cast(sum(postings.amount) as bigint)`.as('held')])
    .groupBy('journal_entries.reference')
    .as('in_flight');
  const refunds = db
    .selectFrom('journal_entries')
    .where('kind', 'in', ['REFUND', 'RETURN'])
    .select(['reference', sql<bigint>`cast(count(*) as bigint)`.as('n')])
    .groupBy('reference')
    .as('refunds');
  const rows = await db
    .selectFrom('transactions')
    .leftJoin(inFlight, 'in_flight.reference', 'transactions.id')
    .leftJoin(refunds, 'refunds.reference', 'transactions.id')
    .select([
      'transactions.id',
      'transactions.status',
      'transactions.funding',
      'transactions.flow',
      'transactions.sent_amount',
      'transactions.refund',
      'in_flight.held',
      'refunds.n',
    ])
    .execute();
  violations.push(...(await verifyCredits(store)));
  for (const r of rows) {
    const refund = r.refund ? (JSON.parse(r.refund) as { status: string }) : undefined;
    const stuck =
      r.funding !== null && (r.status === 'PENDING' || r.status === 'PROCESSING' || refund?.status === 'FAILED');
    const expected = stuck ? r.sent_amount : 0n;
    if ((r.held ?? 0n) !== expected) {
      violations.push({
        invariant: 'in-flight',
        detail: `transaction ${r.id} (${r.status}) holds ${r.held ?? 0n} in flight, expected ${expected}`,
      });
    }
    const refundEntries = Number(r.n ?? 0n);
    const expectedRefunds = r.status === 'FAILED' && r.funding !== null && refund?.status === 'COMPLETED' ? 1 : 0;
    if (refundEntries !== expectedRefunds) {
      violations.push({
        invariant: 'refund-once',
        detail: `transaction ${r.id} (${r.status}) has ${refundEntries} refund entries, expected ${expectedRefunds}`,
      });
    }
  }

  const latest = await db
    .selectFrom('events')
    .innerJoin('transactions', 'transactions.id', 'events.object_id')
    .select([
      'events.object_id',
      'events.type',
      'transactions.status',
      'transactions.type as transaction_type',
      'transactions.flow',
    ])
    .where('events.type', 'not like', '%.REFUND_%')
    .orderBy('events.object_id')
    .orderBy('events.created_at', 'desc')
    .orderBy('events.id', 'desc')
    .execute();
  const seen = new Set<string>();
  for (const e of latest) {
    if (seen.has(e.object_id)) continue;
    seen.add(e.object_id);
    const expected = eventTypeOf({ type: e.transaction_type, flow: e.flow }, e.status);
    if (expected !== undefined && e.type !== expected)
      violations.push({
        invariant: 'event-per-change',
        detail: `transaction ${e.object_id} is ${e.status} but its latest event is ${e.type}`,
      });
  }
  const withoutEvents = rows.filter((r) => !seen.has(r.id));
  for (const r of withoutEvents)
    violations.push({ invariant: 'event-per-change', detail: `transaction ${r.id} has no event` });
  return violations;
}

/** The credits invariant (see verifyTransactions): one SETTLE entry crediting the destination, only on success. */
async function verifyCredits(store: Store): Promise<Violation[]> {
  const { db } = store;
  const credited = await db
    .selectFrom('transactions')
    .where((eb) =>
      eb.or([
        eb('transactions.flow', '=', 'TRANSFER_IN'),
        eb.and([eb('transactions.flow', '=', 'INCOMING_UMA'), eb('transactions.funding', 'is', null)]),
      ]),
    )
    .select([
      'transactions.id',
      'transactions.status',
      'transactions.destination_account_id',
      'transactions.received_amount',
    ])
    .execute();
  const settles = await db
    .selectFrom('journal_entries')
    .innerJoin('transactions', 'transactions.id', 'journal_entries.reference')
    .leftJoin('postings', (join) =>
      join
        .onRef('postings.entry_id', '=', 'journal_entries.id')
        .onRef('postings.account_id', '=', 'transactions.destination_account_id'),
    )
    .where('journal_entries.kind', '=', 'SETTLE')
    .where((eb) =>
      eb.or([
        eb('transactions.flow', '=', 'TRANSFER_IN'),
        eb.and([eb('transactions.flow', '=', 'INCOMING_UMA'), eb('transactions.funding', 'is', null)]),
      ]),
    )
    .select(['journal_entries.reference', 'journal_entries.id as entry_id', 'postings.amount'])
    .execute();
  const byTransaction = new Map<string, { entries: Set<string>; credit: bigint }>();
  for (const r of settles) {
    const seen = byTransaction.get(r.reference!) ?? { entries: new Set<string>(), credit: 0n };
    seen.entries.add(r.entry_id);
    seen.credit += r.amount ?? 0n;
    byTransaction.set(r.reference!, seen);
  }
  const violations: Violation[] = [];
  for (const t of credited) {
    const seen = byTransaction.get(t.id);
    const entries = seen?.entries.size ?? 0;
    const expected = t.status === 'COMPLETED' ? 1 : 0;
    if (entries !== expected) {
      violations.push({
        invariant: 'credit-once',
        detail: `transaction ${t.id} (${t.status}) has ${entries} SETTLE entries, expected ${expected}`,
      });
    } else if (expected === 1 && seen!.credit !== t.received_amount) {
      violations.push({
        invariant: 'credit-once',
        detail:
          `transaction ${t.id} credits ${seen!.credit} to ${t.destination_account_id}, expected ` +
          `${t.received_amount}`,
      });
    }
  }
  return violations;
}
