// Reading transactions: the API shape of a row, the scope every query starts from, and the list filters.
import type { Static } from '@sinclair/typebox';
import { iso } from '../../domain/clock.ts';
import { currency } from '../../domain/currencies.ts';
import { notFound } from '../../domain/errors.ts';
import type { Page, PageRequest } from '../../domain/paging.ts';
import type { TransactionStatus } from '../../domain/transactions.ts';
import type { Transaction as TransactionSchema } from '../../wire/transactions.ts';
import type { Db, Tx } from '../../store/db.ts';
import { statement } from '../../store/compiled.ts';
import { isPostgres } from '../../store/dialect.ts';
import { keysetPage, keysetPageOfUnion, mapPage } from '../../store/paging.ts';
import type { TransactionsTable } from '../../store/schema.ts';
import { inScope, type Scope } from '../../context.ts';

export type Transaction = Static<typeof TransactionSchema>;

export function toTransaction(row: TransactionsTable): Transaction {
  const tx: Transaction = {
    id: row.id,
    status: row.status,
    type: row.type,
    // From the platform's side: an outgoing payment debits its books, an incoming one credits them.
    direction: row.type === 'OUTGOING' ? 'DEBIT' : 'CREDIT',
    source: JSON.parse(row.source),
    destination: JSON.parse(row.destination),
    sentAmount: { amount: Number(row.sent_amount), currency: currency(row.sent_currency) },
    receivedAmount: { amount: Number(row.received_amount), currency: currency(row.received_currency) },
    fees: Number(row.fees),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
  if (row.customer_id !== null) tx.customerId = row.customer_id;
  if (row.platform_customer_id !== null) tx.platformCustomerId = row.platform_customer_id;
  if (row.exchange_rate !== null) tx.exchangeRate = Number(row.exchange_rate);
  if (row.rate_details !== null) tx.rateDetails = JSON.parse(row.rate_details);
  if (row.quote_id !== null) tx.quoteId = row.quote_id;
  if (row.description !== null) tx.description = row.description;
  if (row.payment_instructions !== null) tx.paymentInstructions = JSON.parse(row.payment_instructions);
  if (row.counterparty_information !== null) tx.counterpartyInformation = JSON.parse(row.counterparty_information);
  if (row.failure_reason !== null) tx.failureReason = row.failure_reason;
  if (row.refund !== null) tx.refund = JSON.parse(row.refund);
  if (row.settled_at !== null) tx.settledAt = iso(row.settled_at);
  if (row.sender_uma_address !== null) tx.senderUmaAddress = row.sender_uma_address;
  if (row.receiver_uma_address !== null) tx.receiverUmaAddress = row.receiver_uma_address;
  if (row.type === 'INCOMING' && row.reference !== null) tx.reconciliationInstructions = { reference: row.reference };
  if (row.failure_details !== null) tx.failureDetails = JSON.parse(row.failure_details);
  if (row.remittance_information !== null) tx.remittanceInformation = row.remittance_information;
  if (row.receipt_delivery_confirmed_at !== null)
    tx.receiptDeliveryConfirmedAt = iso(row.receipt_delivery_confirmed_at);
  return tx;
}

export function scopedTransactions(db: Db | Tx, scope: Scope) {
  return db
    .selectFrom('transactions')
    .where('transactions.platform_id', '=', scope.platformId)
    .where('transactions.environment', '=', scope.environment);
}

export interface TransactionFilters {
  customerId?: string | undefined;
  platformCustomerId?: string | undefined;
  senderAccountIdentifier?: string | undefined;
  receiverAccountIdentifier?: string | undefined;
  accountIdentifier?: string | undefined;
  status?: string | undefined;
  type?: string | undefined;
  reference?: string | undefined;
  startDate?: number | undefined;
  endDate?: number | undefined;
}

/** One transaction of the caller's scope. Raises TRANSACTION_NOT_FOUND. */
export async function getTransaction(db: Db, scope: Scope, id: string): Promise<Transaction> {
  const row = await db.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row || !inScope(row, scope)) throw notFound('Transaction', id, 'TRANSACTION_NOT_FOUND');
  return toTransaction(row);
}

/** A page of the caller's transactions, newest first unless the page asks otherwise. */
export async function listTransactions(
  db: Db,
  scope: Scope,
  f: TransactionFilters,
  page: PageRequest,
): Promise<Page<Transaction>> {
  const filtered = () => withFilters(scopedTransactions(db, scope), f);
  const account = f.accountIdentifier;
  // The payments that leave or reach an account. On PostgreSQL, a range of the source account's index and
  // one of the destination's (migration 021), each read for the page alone: given `source = id OR
  // destination = id`, a planner walks the platform's history in page order and tests each payment. SQLite
  // has neither index (021 says why), so one walk testing both sides is its cheapest way.
  if (account !== undefined && isPostgres(db)) {
    const leaving = filtered().where('transactions.source_account_id', '=', account);
    // A payment from the account to itself is the leaving side's alone.
    const reaching = filtered()
      .where('transactions.destination_account_id', '=', account)
      .where('transactions.source_account_id', 'is distinct from', account);
    return mapPage(
      await keysetPageOfUnion<TransactionsTable>(db, [leaving, reaching], 'transactions', page),
      toTransaction,
    );
  }
  let q = filtered();
  if (account !== undefined)
    q = q.where((eb) =>
      eb.or([
        eb('transactions.source_account_id', '=', account),
        eb('transactions.destination_account_id', '=', account),
      ]),
    );
  return mapPage(await keysetPage<TransactionsTable>(q, 'transactions', page), toTransaction);
}

/** The list's filters on `q`, but accountIdentifier, which listTransactions reads each engine its own way. */
function withFilters(q: ReturnType<typeof scopedTransactions>, f: TransactionFilters) {
  if (f.customerId !== undefined) q = q.where('transactions.customer_id', '=', f.customerId);
  if (f.platformCustomerId !== undefined) q = q.where('transactions.platform_customer_id', '=', f.platformCustomerId);
  if (f.senderAccountIdentifier !== undefined)
    q = q.where('transactions.source_account_id', '=', f.senderAccountIdentifier);
  if (f.receiverAccountIdentifier !== undefined)
    q = q.where('transactions.destination_account_id', '=', f.receiverAccountIdentifier);
  if (f.status !== undefined) q = q.where('transactions.status', '=', f.status as TransactionStatus);
  if (f.type !== undefined) q = q.where('transactions.type', '=', f.type as 'OUTGOING');
  if (f.reference !== undefined) q = q.where('transactions.reference', '=', f.reference);
  if (f.startDate !== undefined) q = q.where('transactions.created_at', '>=', BigInt(f.startDate));
  if (f.endDate !== undefined) q = q.where('transactions.created_at', '<=', BigInt(f.endDate));
  return q;
}

/** Rows lockTogether read for a transaction and no loadForUpdate has taken yet. */
const lockedAhead = new WeakMap<Tx, Map<string, TransactionsTable>>();

/**
 * Locks several payments with one statement, in id order (so that two such groups cannot deadlock), for
 * the loadForUpdate calls that follow in the same transaction: each takes its row from here once.
 */
export async function lockTogether(trx: Tx, ids: string[]): Promise<void> {
  keepLocked(trx, await transactionsForUpdate.rows(trx, { ids }));
}

/**
 * Payment rows the caller read under lock (`FOR UPDATE` on PostgreSQL) in a statement of its own, such as
 * one that reads them with another table's row, kept for the loadForUpdate calls that follow.
 */
export function keepLocked(trx: Tx, rows: TransactionsTable[]): void {
  lockedAhead.set(trx, new Map(rows.map((row) => [row.id, row])));
}

const transactionsForUpdate = statement((db, { ids }: { ids: string[] }, engine) => {
  const q = db.selectFrom('transactions').selectAll().where('id', 'in', ids).orderBy('id');
  return engine === 'postgres' ? q.forUpdate() : q;
});

/**
 * Payment rows read under lock (loadForUpdate), and the copies a step made of them as it moved them in the
 * same transaction (`underLock`). Nothing but that transaction can change such a row until it ends, and
 * every change it makes goes through the copy it holds: the row's status is the copy's, with certainty.
 */
const lockedRows = new WeakSet<TransactionsTable>();

/** Whether `row` is a payment held under its lock (see lockedRows). */
export function isUnderLock(row: TransactionsTable): boolean {
  return lockedRows.has(row);
}

/** `copy`, the next state of `row` in the same transaction: held under lock when `row` is. */
export function underLock<T extends TransactionsTable>(row: TransactionsTable, copy: T): T {
  if (lockedRows.has(row)) lockedRows.add(copy);
  return copy;
}

/** The row, locked for the rest of the caller's transaction on PostgreSQL (SQLite's write lock already is). */
export async function loadForUpdate(trx: Tx, scope: Scope, id: string): Promise<TransactionsTable | undefined> {
  // Taken once: after it, this transaction may have changed the row.
  const ahead = lockedAhead.get(trx);
  let row = ahead?.get(id);
  if (row) ahead!.delete(id);
  else row = await transactionsForUpdate.first(trx, { ids: [id] });
  if (!row || !inScope(row, scope)) return undefined;
  lockedRows.add(row);
  return row;
}
