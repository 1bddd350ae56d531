import { sql } from 'kysely';
import type { Store } from '../store/db.ts';

export interface Violation {
  invariant: string;
  detail: string;
}

/**
 * Checks the ledger's invariants over the whole database (every platform and environment):
 * - every journal entry nets to zero in each currency;
 * - a posting's currency is its account's currency;
 * - every stored balance equals the sum of its account's postings;
 * - no stored balance is negative.
 * Sums are cast to bigint so PostgreSQL returns int8 (not numeric) and both engines compare exactly.
 */
export async function verifyLedger(store: Store): Promise<Violation[]> {
  const { db } = store;
  const violations: Violation[] = [];

  const unbalanced = await db
    .selectFrom('postings')
    .select(['entry_id', 'currency', sql<bigint>`cast(sum(amount) as bigint)`.as('total')])
    .groupBy(['entry_id', 'currency'])
    .having(sql`sum(amount)`, '<>', 0)
    .execute();
  for (const r of unbalanced) {
    violations.push({ invariant: 'entry-balances', detail: `journal entry ${r.entry_id} nets ${r.total} ${r.currency}, not 0` });
  }

  const wrongCurrency = await db
    .selectFrom('postings')
    .innerJoin('ledger_accounts', 'ledger_accounts.id', 'postings.account_id')
    .select(['postings.entry_id', 'postings.account_id', 'postings.currency', 'ledger_accounts.currency as account_currency'])
    .whereRef('postings.currency', '<>', 'ledger_accounts.currency')
    .execute();
  for (const r of wrongCurrency) {
    violations.push({ invariant: 'posting-currency', detail: `entry ${r.entry_id} posts ${r.currency} to ${r.account_id}, a ${r.account_currency} account` });
  }

  const mismatched = await db
    .selectFrom('ledger_accounts')
    .leftJoin(
      db.selectFrom('postings').select(['account_id', sql<bigint>`cast(sum(amount) as bigint)`.as('total')]).groupBy('account_id').as('sums'),
      'sums.account_id',
      'ledger_accounts.id',
    )
    .select(['ledger_accounts.id', 'ledger_accounts.balance', 'sums.total'])
    .where('ledger_accounts.kind', 'in', ['CUSTOMER', 'PLATFORM'])
    .where((eb) => eb('ledger_accounts.balance', '<>', eb.fn.coalesce('sums.total', sql<bigint>`cast(0 as bigint)`)))
    .execute();
  for (const r of mismatched) {
    violations.push({ invariant: 'balance-equals-postings', detail: `account ${r.id} stores ${r.balance} but its postings sum to ${r.total ?? 0}` });
  }

  const negative = await db.selectFrom('ledger_accounts').select(['id', 'balance']).where('balance', '<', 0n).execute();
  for (const r of negative) violations.push({ invariant: 'non-negative-balance', detail: `account ${r.id} has balance ${r.balance}` });

  return violations;
}
