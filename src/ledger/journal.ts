import { insufficientBalance } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { Tx } from '../store/db.ts';
import { statement } from '../store/compiled.ts';
import { isPostgres } from '../store/dialect.ts';
import { deferLedgerEntry, insertRows } from '../store/deferred-writes.ts';
import type { Scope } from '../context.ts';
import { tracksBalance } from './accounts.ts';

export interface Posting {
  accountId: string;
  currency: string;
  /** Positive credits the account, negative debits it. */
  amount: bigint;
}

export interface JournalEntryInput {
  kind: string;
  reference: string | null;
  postings: Posting[];
}

/** Pure check, also used by property tests: every currency in an entry nets to zero. */
export function isBalanced(postings: readonly Posting[]): boolean {
  const sums = new Map<string, bigint>();
  for (const p of postings) sums.set(p.currency, (sums.get(p.currency) ?? 0n) + p.amount);
  return [...sums.values()].every((s) => s === 0n);
}

/** A balance move that matched no row: a debit the balance cannot cover, or an account that is not there. */
function checkMoved(p: Posting, updatedRows: bigint): void {
  if (updatedRows === 1n) return;
  if (p.amount < 0n) throw insufficientBalance(p.accountId);
  throw new Error(`ledger account ${p.accountId} (${p.currency}) does not exist`);
}

/**
 * Writes one journal entry and moves the stored balances it touches, inside the caller's transaction.
 * A debit that would take an internal account below zero is refused by the database, not by a read made
 * earlier in JavaScript, and the whole transaction is abandoned with INSUFFICIENT_BALANCE: on SQLite it
 * matches no row of the conditional update; on PostgreSQL the entry rides in the transaction's last
 * statement (store/deferred-writes.ts) and the CHECK on the balance fails it. Balances are updated in
 * account-id order so that two entries touching the same accounts always lock them in the same order and
 * cannot deadlock.
 */
export async function postEntry(trx: Tx, scope: Scope, entry: JournalEntryInput, nowMs: number): Promise<string> {
  if (entry.postings.length < 2) throw new Error(`journal entry ${entry.kind} needs at least two postings`);
  if (entry.postings.some((p) => p.amount === 0n)) throw new Error(`journal entry ${entry.kind} has a zero posting`);
  if (!isBalanced(entry.postings)) throw new Error(`journal entry ${entry.kind} does not balance`);

  const id = newId('JournalEntry');
  const now = BigInt(nowMs);
  const header = {
    id,
    platform_id: scope.platformId,
    environment: scope.environment,
    kind: entry.kind,
    reference: entry.reference,
    created_at: now,
  };
  const lines = entry.postings.map((p, i) => ({
    entry_id: id,
    line: BigInt(i + 1),
    account_id: p.accountId,
    currency: p.currency,
    amount: p.amount,
  }));
  const balanceMoves = entry.postings.filter((p) => tracksBalance(p.accountId));
  if (isPostgres(trx)) {
    // With the transaction's other rows, in its last statement (store/deferred-writes.ts, which orders them).
    await deferLedgerEntry(
      trx,
      header,
      lines,
      balanceMoves.map((p) => ({ ...p, atMs: now })),
    );
    return id;
  }
  balanceMoves.sort((a, b) => (a.accountId < b.accountId ? -1 : 1));
  await insertRows(trx, 'journal_entries', [header]);
  await insertRows(trx, 'postings', lines);
  for (const p of balanceMoves) {
    const result = await moveBalance.run(trx, { accountId: p.accountId, currency: p.currency, amount: p.amount, now });
    checkMoved(p, result.numAffectedRows ?? 0n);
  }
  return id;
}

/** SQLite: a balance moves only while it stays at or above zero. */
const moveBalance = statement((db, v: { accountId: string; currency: string; amount: bigint; now: bigint }) =>
  db
    .updateTable('ledger_accounts')
    .set((eb) => ({ balance: eb('balance', '+', v.amount), updated_at: v.now }))
    .where('id', '=', v.accountId)
    .where('currency', '=', v.currency)
    .where((eb) => eb(eb('balance', '+', v.amount), '>=', 0n)),
);
