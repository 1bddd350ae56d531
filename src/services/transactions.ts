import type { Static } from '@sinclair/typebox';
import type { Transaction as TransactionSchema } from '../http/schemas/transactions.ts';
import { AppError, notFound } from '../domain/errors.ts';
import { iso } from '../domain/clock.ts';
import { currency } from '../domain/currencies.ts';
import { newId } from '../domain/ids.ts';
import { canMove, eventTypeOf, refundEventTypeOf, type Refund, type RefundReason } from '../domain/transactions.ts';
import { fundInFlight, pullIn, refund, returnSettled, settle, type Movement } from '../ledger/flows.ts';
import { postEntry, type Posting } from '../ledger/journal.ts';
import { enqueueJob } from '../jobs/queue.ts';
import type { JobWorker } from '../jobs/worker.ts';
import type { Outcome } from '../rails/sandbox-outcomes.ts';
import { recordEvent, recordEventForDelivery } from '../webhooks/events.ts';
import type { Db, Tx } from '../store/db.ts';
import type { TransactionsTable } from '../store/schema.ts';
import type { Funding, TransactionStatus } from '../domain/transactions.ts';
import { keysetPage, mapPage } from '../store/paging.ts';
import type { Page, PageRequest } from '../domain/paging.ts';
import { scopeNowMs, type Ctx, type Scope, wallNowMs } from '../context.ts';
import { loadScope } from '../platforms.ts';

export type Transaction = Static<typeof TransactionSchema>;

export function toTransaction(row: TransactionsTable): Transaction {
  const tx: Transaction = {
    id: row.id,
    status: row.status,
    type: row.type,
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
  return tx;
}

function movementOf(scope: Scope, row: TransactionsTable): Movement {
  return {
    scope,
    sentCurrency: row.sent_currency,
    receivedCurrency: row.received_currency,
    sent: row.sent_amount,
    received: row.received_amount,
    fees: row.fees,
  };
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

/**
 * Every change of a transaction goes through here: it names the state it leaves (so a transaction another
 * worker already moved is left alone and `false` comes back), writes its ledger entry, mirrors the status
 * onto the quote, and records the event — all in the caller's database transaction.
 */
export async function moveTransaction(
  ctx: Ctx,
  trx: Tx,
  scope: Scope,
  row: TransactionsTable,
  to: TransactionStatus,
  patch: Partial<
    Pick<
      TransactionsTable,
      'failure_reason' | 'failure_details' | 'refund' | 'settled_at' | 'funding' | 'counterparty_information'
    >
  > = {},
  ledger?: { kind: string; postings: Posting[] },
  options: { sandboxReturn?: boolean } = {},
): Promise<TransactionsTable | undefined> {
  if (!canMove(row.flow, row.status, to, options.sandboxReturn))
    throw new Error(`transaction ${row.id}: ${row.status} → ${to} is not a lifecycle edge`);
  const now = scopeNowMs(ctx, scope);
  const result = await trx
    .updateTable('transactions')
    .set({ ...patch, status: to, updated_at: BigInt(now) })
    .where('id', '=', row.id)
    .where('status', '=', row.status)
    .executeTakeFirst();
  if (result.numUpdatedRows !== 1n) return undefined;
  if (ledger && ledger.postings.length > 0)
    await postEntry(trx, scope, { kind: ledger.kind, reference: row.id, postings: ledger.postings }, now);
  if (row.quote_id) {
    await trx
      .updateTable('quotes')
      .set({ status: to, updated_at: BigInt(now) })
      .where('id', '=', row.quote_id)
      .execute();
  }
  const updated: TransactionsTable = { ...row, ...patch, status: to, updated_at: BigInt(now) };
  const type = eventTypeOf(row, to);
  if (type !== undefined) await recordEvent(trx, scope, { type, objectId: row.id, data: toTransaction(updated) }, now);
  return updated;
}

/** What says what a new transaction is; every other field starts empty. */
export type TransactionDraft = Pick<
  TransactionsTable,
  | 'type'
  | 'flow'
  | 'source'
  | 'destination'
  | 'sent_amount'
  | 'sent_currency'
  | 'received_amount'
  | 'received_currency'
  | 'outcome'
> &
  Partial<TransactionsTable>;

/** A new PENDING transaction row, stamped with the scope's time. */
export function newTransaction(scope: Scope, nowMs: number, draft: TransactionDraft): TransactionsTable {
  const now = BigInt(nowMs);
  return {
    id: newId('Transaction'),
    platform_id: scope.platformId,
    environment: scope.environment,
    status: 'PENDING',
    source_account_id: null,
    destination_account_id: null,
    funding: null,
    customer_id: null,
    platform_customer_id: null,
    sender_uma_address: null,
    receiver_uma_address: null,
    fees: 0n,
    exchange_rate: null,
    rate_details: null,
    quote_id: null,
    description: null,
    reference: null,
    payment_instructions: null,
    counterparty_information: null,
    failure_reason: null,
    failure_details: null,
    refund: null,
    settled_at: null,
    created_at: now,
    updated_at: now,
    ...draft,
  };
}

/** Records a new transaction and its creation event in the caller's transaction. */
export async function insertTransaction(trx: Tx, scope: Scope, row: TransactionsTable): Promise<void> {
  await trx.insertInto('transactions').values(row).execute();
  await recordEvent(trx, scope, creationEvent(row), Number(row.created_at));
}

/**
 * insertTransaction for a caller that delivers the creation event itself right after commit and acts
 * on the answer (the incoming-payment approval request): returns the delivery job's id.
 */
export async function insertTransactionForDelivery(trx: Tx, scope: Scope, row: TransactionsTable): Promise<string> {
  await trx.insertInto('transactions').values(row).execute();
  return (await recordEventForDelivery(trx, scope, creationEvent(row), Number(row.created_at))).jobId;
}

function creationEvent(row: TransactionsTable) {
  return { type: eventTypeOf(row, row.status)!, objectId: row.id, data: toTransaction(row) };
}

export function makeTransactionService(ctx: Ctx, worker: JobWorker) {
  const { db } = ctx.store;

  async function loadForUpdate(trx: Tx, scope: Scope, id: string): Promise<TransactionsTable | undefined> {
    let q = scopedTransactions(trx, scope).selectAll().where('transactions.id', '=', id);
    if (ctx.store.engine === 'postgres') q = q.forUpdate();
    return q.executeTakeFirst();
  }

  /** The payer's money is in flight: debit the internal account (or record the money received from outside). */
  async function fund(trx: Tx, scope: Scope, row: TransactionsTable, funding: Funding): Promise<TransactionsTable> {
    const postings = fundInFlight(scope, funding, row.source_account_id, row.sent_currency, row.sent_amount);
    await postEntry(trx, scope, { kind: 'FUND', reference: row.id, postings }, scopeNowMs(ctx, scope));
    // A transfer-out is inserted already marked as funded from its internal account; a quote learns at run time.
    if (row.funding !== funding)
      await trx.updateTable('transactions').set({ funding }).where('id', '=', row.id).execute();
    return { ...row, funding };
  }

  /**
   * The payment reaches its destination. Money received for an internal account (a pull, an incoming UMA
   * payment credited to the customer's internal account) is credited from settlement now; money that was
   * in flight (an outgoing payment, or an incoming one passing through to an external deposit account)
   * leaves through settlement.
   */
  async function complete(trx: Tx, scope: Scope, row: TransactionsTable): Promise<TransactionsTable | undefined> {
    const creditsInternal = row.flow === 'TRANSFER_IN' || (row.flow === 'INCOMING_UMA' && row.funding === null);
    const postings = creditsInternal
      ? pullIn(scope, row.destination_account_id!, row.received_currency, row.received_amount)
      : settle(movementOf(scope, row));
    return moveTransaction(
      ctx,
      trx,
      scope,
      row,
      'COMPLETED',
      { settled_at: BigInt(scopeNowMs(ctx, scope)) },
      { kind: 'SETTLE', postings },
    );
  }

  function refundObject(scope: Scope, row: TransactionsTable, status: Refund['status'], reason: RefundReason): string {
    const now = iso(scopeNowMs(ctx, scope));
    const value: Refund = { reference: `RF-${row.id.slice(-12).toUpperCase()}`, initiatedAt: now, status, reason };
    if (status === 'COMPLETED') value.settledAt = now;
    return JSON.stringify(value);
  }

  /**
   * Delivery failed. Money that was in flight goes back where it came from, unless the rail reports that
   * the refund failed too (sandbox 007): then it stays in the in-flight account for an operator, and the
   * refund object says FAILED.
   */
  async function fail(
    trx: Tx,
    scope: Scope,
    row: TransactionsTable,
    reason: string,
    refundStatus: 'COMPLETED' | 'FAILED',
    refundReason: RefundReason,
  ): Promise<TransactionsTable | undefined> {
    if (!row.funding || row.flow === 'TRANSFER_IN') {
      return moveTransaction(ctx, trx, scope, row, 'FAILED', { failure_reason: reason });
    }
    const postings =
      refundStatus === 'COMPLETED' ? refund(movementOf(scope, row), row.funding, row.source_account_id) : [];
    const failed = await moveTransaction(
      ctx,
      trx,
      scope,
      row,
      'FAILED',
      { failure_reason: reason, refund: refundObject(scope, row, refundStatus, refundReason) },
      { kind: 'REFUND', postings },
    );
    if (failed) await recordRefundEvent(trx, scope, failed, refundStatus);
    return failed;
  }

  async function recordRefundEvent(
    trx: Tx,
    scope: Scope,
    row: TransactionsTable,
    status: 'COMPLETED' | 'FAILED',
  ): Promise<void> {
    const type = refundEventTypeOf(row, status);
    if (type !== undefined)
      await recordEvent(trx, scope, { type, objectId: row.id, data: toTransaction(row) }, scopeNowMs(ctx, scope));
  }

  /**
   * PENDING and funded → PROCESSING, then whatever the rail's planned outcome says: settle or fail now, or
   * queue the delayed step. Runs in the caller's transaction; a transaction no longer PENDING is left alone.
   */
  async function process(trx: Tx, scope: Scope, row: TransactionsTable): Promise<TransactionsTable | undefined> {
    // Money received for an internal account is credited on completion, so those flows process unfunded.
    if (row.status !== 'PENDING' || (row.funding === null && row.flow !== 'TRANSFER_IN' && row.flow !== 'INCOMING_UMA'))
      return undefined;
    const processing = await moveTransaction(ctx, trx, scope, row, 'PROCESSING');
    if (!processing) return undefined;
    const outcome = JSON.parse(row.outcome) as Outcome;
    const realNow = wallNowMs(ctx);
    switch (outcome.kind) {
      case 'COMPLETE':
        return complete(trx, scope, processing);
      case 'FAIL':
        return fail(trx, scope, processing, outcome.reason, outcome.refund, outcome.refundReason);
      case 'COMPLETE_AFTER':
        await enqueueJob(
          trx,
          scope,
          'transaction.finish',
          { id: row.id, result: 'COMPLETE' },
          realNow,
          outcome.delayMs,
        );
        return processing;
      case 'FAIL_AFTER':
        await enqueueJob(
          trx,
          scope,
          'transaction.finish',
          { id: row.id, result: 'FAIL', reason: outcome.reason, refundReason: outcome.refundReason },
          realNow,
          outcome.delayMs,
        );
        return processing;
      case 'COMPLETE_THEN_RETURN': {
        const completed = await complete(trx, scope, processing);
        await enqueueJob(
          trx,
          scope,
          'transaction.return',
          { id: row.id, reason: outcome.reason },
          realNow,
          outcome.returnAfterMs,
        );
        return completed;
      }
      case 'MANUAL':
        return processing;
    }
  }

  /** A settled payment returned by the receiving bank (sandbox quote suffix 005): COMPLETED → FAILED, refunded. */
  async function returnPayment(trx: Tx, scope: Scope, row: TransactionsTable, reason: string): Promise<void> {
    if (row.status !== 'COMPLETED' || !row.funding) return;
    const postings = returnSettled(movementOf(scope, row), row.funding, row.source_account_id);
    const failed = await moveTransaction(
      ctx,
      trx,
      scope,
      row,
      'FAILED',
      { failure_reason: reason, refund: refundObject(scope, row, 'COMPLETED', 'TRANSACTION_FAILED') },
      { kind: 'RETURN', postings },
      { sandboxReturn: true },
    );
    if (failed) await recordRefundEvent(trx, scope, failed, 'COMPLETED');
  }

  worker.registerInTransaction('transaction.process', async (trx, { id }, _job, scope) => {
    const row = await loadForUpdate(trx, scope, id);
    if (row) await process(trx, scope, row);
  });
  worker.registerInTransaction('transaction.finish', async (trx, payload, _job, scope) => {
    const row = await loadForUpdate(trx, scope, payload.id);
    if (!row || row.status !== 'PROCESSING') return;
    if (payload.result === 'COMPLETE') await complete(trx, scope, row);
    else
      await fail(
        trx,
        scope,
        row,
        payload.reason ?? 'COUNTERPARTY_POST_TX_FAILED',
        'COMPLETED',
        payload.refundReason ?? 'TRANSACTION_FAILED',
      );
  });
  worker.registerInTransaction('transaction.return', async (trx, payload, _job, scope) => {
    const row = await loadForUpdate(trx, scope, payload.id);
    if (row) await returnPayment(trx, scope, row, payload.reason);
  });

  return {
    fund,
    process,
    fail,
    loadForUpdate,

    async get(scope: Scope, id: string): Promise<Transaction> {
      const row = await scopedTransactions(db, scope).selectAll().where('transactions.id', '=', id).executeTakeFirst();
      if (!row) throw notFound('Transaction', id, 'TRANSACTION_NOT_FOUND');
      return toTransaction(row);
    },

    async list(scope: Scope, f: TransactionFilters, page: PageRequest): Promise<Page<Transaction>> {
      let q = scopedTransactions(db, scope);
      if (f.customerId !== undefined) q = q.where('transactions.customer_id', '=', f.customerId);
      if (f.platformCustomerId !== undefined)
        q = q.where('transactions.platform_customer_id', '=', f.platformCustomerId);
      if (f.senderAccountIdentifier !== undefined)
        q = q.where('transactions.source_account_id', '=', f.senderAccountIdentifier);
      if (f.receiverAccountIdentifier !== undefined)
        q = q.where('transactions.destination_account_id', '=', f.receiverAccountIdentifier);
      if (f.accountIdentifier !== undefined) {
        const id = f.accountIdentifier;
        q = q.where((eb) =>
          eb.or([eb('transactions.source_account_id', '=', id), eb('transactions.destination_account_id', '=', id)]),
        );
      }
      if (f.status !== undefined) q = q.where('transactions.status', '=', f.status as TransactionStatus);
      if (f.type !== undefined) q = q.where('transactions.type', '=', f.type as 'OUTGOING');
      if (f.reference !== undefined) q = q.where('transactions.reference', '=', f.reference);
      if (f.startDate !== undefined) q = q.where('transactions.created_at', '>=', BigInt(f.startDate));
      if (f.endDate !== undefined) q = q.where('transactions.created_at', '<=', BigInt(f.endDate));
      return mapPage(await keysetPage<TransactionsTable>(q, 'transactions', page), toTransaction);
    },

    /**
     * The production connector's operator step (`payouts transactions settle|fail`): a PROCESSING
     * transaction is completed or failed with the same ledger and event effects as a rail outcome.
     */
    async resolveManually(
      id: string,
      result: 'COMPLETE' | 'FAIL',
      reason = 'COUNTERPARTY_POST_TX_FAILED',
    ): Promise<Transaction> {
      const owner = await db
        .selectFrom('transactions')
        .select(['platform_id', 'environment'])
        .where('id', '=', id)
        .executeTakeFirst();
      if (!owner) throw notFound('Transaction', id, 'TRANSACTION_NOT_FOUND');
      const scope = await loadScope(ctx, owner.platform_id, owner.environment);
      return ctx.store.tx(async (trx) => {
        const row = (await loadForUpdate(trx, scope, id))!;
        if (row.status !== 'PROCESSING')
          throw new AppError(
            'CONFLICT',
            `Transaction ${id} is ${row.status}; only PROCESSING transactions can be settled or failed`,
          );
        const moved =
          result === 'COMPLETE'
            ? await complete(trx, scope, row)
            : await fail(trx, scope, row, reason, 'COMPLETED', 'TRANSACTION_FAILED');
        return toTransaction(moved!);
      });
    },

    /** Queues the rail step for a newly funded transaction, durably, in the caller's transaction. */
    async queueProcessing(trx: Tx, scope: Scope, id: string): Promise<void> {
      await enqueueJob(trx, scope, 'transaction.process', { id }, wallNowMs(ctx));
    },
  };
}

export type TransactionService = ReturnType<typeof makeTransactionService>;
