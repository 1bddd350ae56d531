// Transactions: the contract other services and the routes use, and the factory that binds it. The work
// is in lifecycle.ts (the state machine and its postings), jobs.ts (the delayed rail steps) and
// queries.ts (reading).
import { AppError, notFound } from '../../domain/errors.ts';
import type { Page, PageRequest } from '../../domain/paging.ts';
import type { Funding } from '../../domain/transactions.ts';
import type { JobWorker } from '../../jobs/worker.ts';
import type { Tx } from '../../store/db.ts';
import type { TransactionsTable } from '../../store/schema.ts';
import { scopeNowMs, type Ctx, type Scope } from '../../context.ts';
import type { Outcome } from '../../rails/sandbox-outcomes.ts';
import { loadScope } from '../../platforms.ts';
import { registerTransactionJobs } from './jobs.ts';
import {
  complete,
  type Failure,
  fail,
  fund,
  type Move,
  moveTransaction,
  process,
  queueProcessing,
  RAIL_FAILURE,
} from './lifecycle.ts';
import {
  getTransaction,
  listTransactions,
  loadForUpdate,
  type Transaction,
  type TransactionFilters,
  toTransaction,
} from './queries.ts';

export { keepLocked } from './queries.ts';
export {
  type Failure,
  RAIL_FAILURE,
  insertTransaction,
  insertTransactionForDelivery,
  moveTransaction,
  newTransaction,
  type PaymentPatch,
  type TransactionDraft,
} from './lifecycle.ts';
export { scopedTransactions, type Transaction, type TransactionFilters, toTransaction } from './queries.ts';

export interface TransactionService {
  /** Debits the payer into the in-flight account, in the caller's transaction; `process` must follow in it. */
  fund(trx: Tx, scope: Scope, payment: TransactionsTable, funding: Funding): Promise<TransactionsTable>;
  /** PENDING → PROCESSING and the rail's outcome; undefined when the payment was not PENDING and funded. */
  process(trx: Tx, scope: Scope, payment: TransactionsTable): Promise<TransactionsTable | undefined>;
  /** PROCESSING → FAILED with the refund; undefined when another step moved it first. */
  fail(trx: Tx, scope: Scope, payment: TransactionsTable, failure: Failure): Promise<TransactionsTable | undefined>;
  /** The payment row, locked for the caller's transaction. */
  loadForUpdate(trx: Tx, scope: Scope, id: string): Promise<TransactionsTable | undefined>;
  /** Queues the rail step of a newly funded payment, in the caller's transaction. */
  queueProcessing(trx: Tx, scope: Scope, id: string): Promise<void>;
  /** One transaction. Raises TRANSACTION_NOT_FOUND. */
  get(scope: Scope, id: string): Promise<Transaction>;
  /** A page of transactions matching the filters. */
  list(scope: Scope, filters: TransactionFilters, page: PageRequest): Promise<Page<Transaction>>;
  /**
   * The production connector's operator step: settle or fail a PROCESSING transaction, with the ledger and
   * events of a rail outcome. Raises TRANSACTION_NOT_FOUND, CONFLICT.
   */
  resolveManually(id: string, result: 'COMPLETE' | 'FAIL', failure?: Failure): Promise<Transaction>;
  /**
   * Cancels an outgoing payment not yet handed to its rail (funded and PENDING) or held by the production
   * connector (PROCESSING, not settled): it fails and is refunded like every failure. Otherwise 409
   * TRANSACTION_NOT_CANCELLABLE; 404 TRANSACTION_NOT_FOUND.
   */
  cancel(scope: Scope, id: string): Promise<Transaction>;
  /** Records when the customer got the payment's receipt (now, when not given). 404 TRANSACTION_NOT_FOUND. */
  confirmReceipt(scope: Scope, id: string, atMs: number | undefined): Promise<Transaction>;
}

export function makeTransactionService(ctx: Ctx, worker: JobWorker): TransactionService {
  registerTransactionJobs(ctx, worker);
  return {
    fund: (trx, scope, payment, funding) => fund(ctx, trx, scope, payment, funding),
    process: (trx, scope, payment) => process(ctx, trx, scope, payment),
    fail: (trx, scope, payment, failure) => fail(ctx, trx, scope, payment, failure),
    loadForUpdate,
    queueProcessing: (trx, scope, id) => queueProcessing(ctx, trx, scope, id),
    get: (scope, id) => getTransaction(ctx.store.db, scope, id),
    list: (scope, filters, page) => listTransactions(ctx.store.db, scope, filters, page),
    resolveManually: (id, result, failure = RAIL_FAILURE) => resolveManually(ctx, id, result, failure),
    cancel: (scope, id) => cancel(ctx, scope, id),
    confirmReceipt: (scope, id, atMs) => confirmReceipt(ctx, scope, id, atMs),
  };
}

async function resolveManually(
  ctx: Ctx,
  id: string,
  result: 'COMPLETE' | 'FAIL',
  failure: Failure,
): Promise<Transaction> {
  const owner = await ctx.store.db
    .selectFrom('transactions')
    .select(['platform_id', 'environment'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!owner) throw notFound('Transaction', id, 'TRANSACTION_NOT_FOUND');
  const scope = await loadScope(ctx, owner.platform_id, owner.environment);
  return ctx.store.tx(async (trx) => {
    const payment = await loadForUpdate(trx, scope, id);
    if (!payment) throw notFound('Transaction', id, 'TRANSACTION_NOT_FOUND');
    // A bank-file connector's payment held back from its file (on the attention list) is PENDING, funded.
    const held = payment.status === 'PENDING' && payment.funding !== null && (await heldFromBankFile(trx, id));
    if (payment.status !== 'PROCESSING' && !held)
      throw new AppError(
        'CONFLICT',
        `Transaction ${id} is ${payment.status}; only PROCESSING transactions can be settled or failed`,
      );
    const via: Move[] = held ? [{ to: 'PROCESSING' }] : [];
    const moved =
      result === 'COMPLETE'
        ? await complete(ctx, trx, scope, payment, ...via)
        : await fail(ctx, trx, scope, payment, failure, ...via);
    // The row is locked and PROCESSING, so this process is the one that moves it.
    if (!moved) throw new Error(`transaction ${id} moved under its lock`);
    return toTransaction(moved);
  });
}

/** Whether the payment waits for a bank file it was held back from (its rail row BATCHING, on the attention list). */
async function heldFromBankFile(trx: Tx, id: string): Promise<boolean> {
  const rail = await trx
    .selectFrom('rail_payments')
    .select(['state', 'attention', 'bank_file_id'])
    .where('transaction_id', '=', id)
    .executeTakeFirst();
  return rail?.state === 'BATCHING' && rail.attention !== null && rail.bank_file_id === null;
}

/** A cancellation is a failure the platform asked for: the contract's fallback reason, refunded. */
const CANCELLED: Failure = {
  reason: 'COUNTERPARTY_POST_TX_FAILED',
  refund: 'COMPLETED',
  refundReason: 'USER_CANCELLATION',
};

async function cancel(ctx: Ctx, scope: Scope, id: string): Promise<Transaction> {
  return ctx.store.tx(async (trx) => {
    const payment = await loadForUpdate(trx, scope, id);
    if (!payment) throw notFound('Transaction', id, 'TRANSACTION_NOT_FOUND');
    const held = (JSON.parse(payment.outcome) as Outcome).kind === 'MANUAL';
    const cancellable =
      payment.type === 'OUTGOING' &&
      payment.funding !== null &&
      (payment.status === 'PENDING' || (payment.status === 'PROCESSING' && held));
    if (!cancellable)
      throw new AppError(
        'TRANSACTION_NOT_CANCELLABLE',
        `Transaction ${id} is ${payment.status} and ${payment.funding === null ? 'not funded' : 'with its rail'}; ` +
          'only funded outgoing payments not yet handed to a rail can be cancelled',
      );
    // The status path stays the specification's: PENDING → PROCESSING → FAILED, each with its event.
    const processing =
      payment.status === 'PENDING' ? await moveTransaction(ctx, trx, scope, payment, { to: 'PROCESSING' }) : payment;
    const failed = processing && (await fail(ctx, trx, scope, processing, CANCELLED));
    if (!failed) throw new Error(`transaction ${id} moved under its lock`);
    return toTransaction(failed);
  });
}

async function confirmReceipt(ctx: Ctx, scope: Scope, id: string, atMs: number | undefined): Promise<Transaction> {
  return ctx.store.tx(async (trx) => {
    const payment = await loadForUpdate(trx, scope, id);
    if (!payment) throw notFound('Transaction', id, 'TRANSACTION_NOT_FOUND');
    const now = BigInt(scopeNowMs(ctx, scope));
    const confirmed = {
      ...payment,
      receipt_delivery_confirmed_at: atMs === undefined ? now : BigInt(atMs),
      updated_at: now,
    };
    await trx
      .updateTable('transactions')
      .set({ receipt_delivery_confirmed_at: confirmed.receipt_delivery_confirmed_at, updated_at: now })
      .where('id', '=', id)
      .execute();
    return toTransaction(confirmed);
  });
}
