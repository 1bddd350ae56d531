// The state machine of a payment and its ledger postings. Every change goes through moveTransaction, the
// one compare-and-set choke point; the steps (fund, process, complete, fail, return) are top-level use
// cases that run in the caller's database transaction (`trx`). The transaction row is `payment`.
import { assert, present } from '../../domain/assert.ts';
import { iso } from '../../domain/clock.ts';
import type { FailureReason } from '../../domain/failure-reasons.ts';
import { newId } from '../../domain/ids.ts';
import {
  canMove,
  eventTypeOf,
  type Funding,
  type Refund,
  type RefundReason,
  refundEventTypeOf,
  type TransactionStatus,
} from '../../domain/transactions.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import { fundInFlight, type Movement, pullIn, refund, returnSettled, settle } from '../../ledger/flows.ts';
import { type Posting, postEntry } from '../../ledger/journal.ts';
import { endToEndIdOf } from '../../rails/iso20022/ids.ts';
import type { Outcome } from '../../rails/sandbox-outcomes.ts';
import type { Tx } from '../../store/db.ts';
import { deferInsert, deferUpdate } from '../../store/deferred-writes.ts';
import { statement } from '../../store/compiled.ts';
import type { TransactionsTable } from '../../store/schema.ts';
import { recordEvent, recordEventForDelivery } from '../../webhooks/events.ts';
import { type Ctx, type Scope, scopeNowMs, wallNowMs } from '../../context.ts';
import { isUnderLock, toTransaction, underLock } from './queries.ts';

/** The columns a move may set besides the status. */
export type PaymentPatch = Partial<
  Pick<
    TransactionsTable,
    'failure_reason' | 'failure_details' | 'refund' | 'settled_at' | 'funding' | 'counterparty_information'
  >
>;

/** A payment's move: what it sets (its new status among it), from which status. */
interface Transition {
  set: PaymentPatch & Pick<TransactionsTable, 'status' | 'updated_at'>;
  id: string;
  from: TransactionsTable['status'];
}

/** A payment's move, made only from the status it was read in (a step that lost a race changes nothing). */
const transition = statement((db, v: Transition) =>
  db.updateTable('transactions').set(v.set).where('id', '=', v.id).where('status', '=', v.from),
);

/**
 * The move of a payment held under its lock, written with the transaction's other deferred rows (one
 * statement fewer per payment on PostgreSQL): its outcome is certain, since nothing else can have moved the
 * row. Should that ever be false, the status it would write is NULL, which the column refuses: the whole
 * transaction fails rather than write the move's ledger and events without the move.
 */
const lockedTransition = statement((db, v: Transition) =>
  db
    .updateTable('transactions')
    .set((eb) => ({
      ...v.set,
      // NULL (refused by the column) when the row is not in the state the move leaves.
      status: eb.case().when('status', '=', v.from).then(v.set.status).end().$castTo<TransactionsTable['status']>(),
    }))
    .where('id', '=', v.id),
);

/** Two moves of one payment in one transaction (PENDING → PROCESSING → FAILED): one UPDATE from the first state. */
const mergeMoves = (earlier: Transition, later: Transition): Transition => ({
  ...earlier,
  set: { ...earlier.set, ...later.set },
});

/** Writes the payment's move: deferred when the row is held under lock, at once (and checked) otherwise. */
async function writeMove(trx: Tx, payment: TransactionsTable, move: Transition): Promise<boolean> {
  if (isUnderLock(payment)) {
    await deferUpdate(trx, {
      key: `transactions ${move.id}`,
      update: lockedTransition,
      values: move,
      merge: mergeMoves,
    });
    return true;
  }
  const result = await transition.run(trx, move);
  return result.numAffectedRows === 1n;
}

export interface Move {
  to: TransactionStatus;
  set?: PaymentPatch;
  /** The journal entry that moves the money with the status (none when no money moves). */
  ledger?: { kind: string; postings: Posting[] };
  /** COMPLETED → FAILED, which only a sandbox return may take. */
  sandboxReturn?: boolean;
}

/**
 * Every change of a transaction goes through here: it names the state it leaves (so a transaction another
 * worker already moved is left alone and undefined comes back), writes its ledger entry, and records the event,
 * all in the caller's database transaction (a quote's status is its payment's: it moves with it). Several
 * steps taken at once (PENDING → PROCESSING → COMPLETED when the rail answers at once) write the row once,
 * each step's ledger entry, and each step's event in order.
 */
export async function moveTransaction(
  ctx: Ctx,
  trx: Tx,
  scope: Scope,
  payment: TransactionsTable,
  ...steps: Move[]
): Promise<TransactionsTable | undefined> {
  assert(steps.length > 0, 'a move takes at least one step');
  const now = scopeNowMs(ctx, scope);
  const rows: TransactionsTable[] = [];
  let from = payment;
  for (const step of steps) {
    if (!canMove(from.flow, from.status, step.to, step.sandboxReturn))
      throw new Error(`transaction ${payment.id}: ${from.status} → ${step.to} is not a lifecycle edge`);
    from = { ...from, ...step.set, status: step.to, updated_at: BigInt(now) };
    rows.push(from);
  }
  const moved = from;
  const set: PaymentPatch = Object.assign({}, ...steps.map((step) => step.set));
  const wrote = await writeMove(trx, payment, {
    set: { ...set, status: moved.status, updated_at: BigInt(now) },
    id: payment.id,
    from: payment.status,
  });
  if (!wrote) return undefined;
  for (const { ledger } of steps)
    if (ledger && ledger.postings.length > 0)
      await postEntry(trx, scope, { kind: ledger.kind, reference: payment.id, postings: ledger.postings }, now);
  for (const [i, row] of rows.entries()) {
    const type = eventTypeOf(i === 0 ? payment : rows[i - 1]!, row.status);
    if (type !== undefined)
      await recordEvent(trx, scope, { type, objectId: payment.id, data: toTransaction(row) }, now);
  }
  return underLock(payment, moved);
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
    remittance_information: null,
    receipt_delivery_confirmed_at: null,
    refund: null,
    settled_at: null,
    created_at: now,
    updated_at: now,
    ...draft,
  };
}

/** Records a new transaction and its creation event in the caller's transaction. */
export async function insertTransaction(trx: Tx, scope: Scope, payment: TransactionsTable): Promise<void> {
  await deferInsert(trx, 'transactions', payment);
  await recordEvent(trx, scope, creationEvent(payment), Number(payment.created_at));
}

/**
 * insertTransaction for a caller that delivers the creation event itself right after commit and acts
 * on the answer (the incoming-payment approval request): returns the delivery job's id.
 */
export async function insertTransactionForDelivery(trx: Tx, scope: Scope, payment: TransactionsTable): Promise<string> {
  await deferInsert(trx, 'transactions', payment);
  return (await recordEventForDelivery(trx, scope, creationEvent(payment), Number(payment.created_at))).jobId;
}

function creationEvent(payment: TransactionsTable) {
  const type = present(eventTypeOf(payment, payment.status), 'every new transaction has a creation event');
  return { type, objectId: payment.id, data: toTransaction(payment) };
}

function movementOf(scope: Scope, payment: TransactionsTable): Movement {
  return {
    scope,
    sentCurrency: payment.sent_currency,
    receivedCurrency: payment.received_currency,
    sent: payment.sent_amount,
    received: payment.received_amount,
    fees: payment.fees,
  };
}

/**
 * The payer's money is in flight: debit the internal account (or record the money received from outside).
 * The payment's `funding` column is written by its move to PROCESSING (process), which the caller makes next
 * in the same transaction: one UPDATE of the row instead of two.
 */
export async function fund(
  ctx: Ctx,
  trx: Tx,
  scope: Scope,
  payment: TransactionsTable,
  funding: Funding,
): Promise<TransactionsTable> {
  const postings = fundInFlight(scope, funding, payment.source_account_id, payment.sent_currency, payment.sent_amount);
  await postEntry(trx, scope, { kind: 'FUND', reference: payment.id, postings }, scopeNowMs(ctx, scope));
  return underLock(payment, { ...payment, funding });
}

/**
 * The payment reaches its destination. Money received for an internal account (a pull, an incoming UMA
 * payment credited to the customer's internal account) is credited from settlement now; money that was
 * in flight (an outgoing payment, or an incoming one passing through to an external deposit account)
 * leaves through settlement.
 */
function settleMove(ctx: Ctx, scope: Scope, payment: TransactionsTable): Move {
  const creditsInternal =
    payment.flow === 'TRANSFER_IN' || (payment.flow === 'INCOMING_UMA' && payment.funding === null);
  const postings = creditsInternal
    ? pullIn(
        scope,
        present(payment.destination_account_id, 'money received for an internal account names that account'),
        payment.received_currency,
        payment.received_amount,
      )
    : settle(movementOf(scope, payment));
  return { to: 'COMPLETED', set: { settled_at: BigInt(scopeNowMs(ctx, scope)) }, ledger: { kind: 'SETTLE', postings } };
}

/** Settles the payment (see settleMove), after `via` when steps are taken at once. */
export function complete(
  ctx: Ctx,
  trx: Tx,
  scope: Scope,
  payment: TransactionsTable,
  ...via: Move[]
): Promise<TransactionsTable | undefined> {
  return moveTransaction(ctx, trx, scope, payment, ...via, settleMove(ctx, scope, payment));
}

function refundObject(
  ctx: Ctx,
  scope: Scope,
  payment: TransactionsTable,
  status: Refund['status'],
  reason: RefundReason,
): string {
  const now = iso(scopeNowMs(ctx, scope));
  const value: Refund = { reference: `RF-${payment.id.slice(-12).toUpperCase()}`, initiatedAt: now, status, reason };
  if (status === 'COMPLETED') value.settledAt = now;
  return JSON.stringify(value);
}

async function recordRefundEvent(
  ctx: Ctx,
  trx: Tx,
  scope: Scope,
  payment: TransactionsTable,
  status: 'COMPLETED' | 'FAILED',
): Promise<void> {
  const type = refundEventTypeOf(payment, status);
  if (type !== undefined)
    await recordEvent(trx, scope, { type, objectId: payment.id, data: toTransaction(payment) }, scopeNowMs(ctx, scope));
}

/** Why a payment failed, and what became of the money that was in flight. */
export interface Failure {
  reason: FailureReason;
  /** FAILED when the rail reports that the refund failed too (sandbox 007). */
  refund: 'COMPLETED' | 'FAILED';
  refundReason: RefundReason;
}

/** The failure an operator or a rail reports without details: the contract's fallback, refunded. */
export const RAIL_FAILURE: Failure = {
  reason: 'COUNTERPARTY_POST_TX_FAILED',
  refund: 'COMPLETED',
  refundReason: 'TRANSACTION_FAILED',
};

/**
 * Delivery failed. Money that was in flight goes back where it came from, unless the rail reports that
 * the refund failed too (sandbox 007): then it stays in the in-flight account for an operator, and the
 * refund object says FAILED. `via`: steps taken at once before it (PENDING → PROCESSING).
 */
export async function fail(
  ctx: Ctx,
  trx: Tx,
  scope: Scope,
  payment: TransactionsTable,
  failure: Failure,
  ...via: Move[]
): Promise<TransactionsTable | undefined> {
  if (!payment.funding || payment.flow === 'TRANSFER_IN') {
    return moveTransaction(ctx, trx, scope, payment, ...via, { to: 'FAILED', set: { failure_reason: failure.reason } });
  }
  const postings =
    failure.refund === 'COMPLETED'
      ? refund(movementOf(scope, payment), payment.funding, payment.source_account_id)
      : [];
  const failed = await moveTransaction(ctx, trx, scope, payment, ...via, {
    to: 'FAILED',
    set: {
      failure_reason: failure.reason,
      refund: refundObject(ctx, scope, payment, failure.refund, failure.refundReason),
    },
    ledger: { kind: 'REFUND', postings },
  });
  if (failed) await recordRefundEvent(ctx, trx, scope, failed, failure.refund);
  return failed;
}

/**
 * PENDING and funded → PROCESSING, then whatever the rail's planned outcome says: settle or fail now (both
 * steps written at once), or queue the delayed step. Runs in the caller's transaction; a transaction no
 * longer PENDING is left alone.
 */
export async function process(
  ctx: Ctx,
  trx: Tx,
  scope: Scope,
  payment: TransactionsTable,
): Promise<TransactionsTable | undefined> {
  // Money received for an internal account is credited on completion, so those flows process unfunded.
  const processesUnfunded = payment.flow === 'TRANSFER_IN' || payment.flow === 'INCOMING_UMA';
  if (payment.status !== 'PENDING' || (payment.funding === null && !processesUnfunded)) return undefined;
  // A quote's payment learns how it is funded when it runs (fund): the move writes it with the status.
  const toProcessing: Move = { to: 'PROCESSING', set: payment.funding === null ? {} : { funding: payment.funding } };
  const outcome = JSON.parse(payment.outcome) as Outcome;
  // Delayed rail steps are jobs, and job due times are wall time (the sandbox clock moves jobs instead).
  const wallNow = wallNowMs(ctx);
  switch (outcome.kind) {
    case 'COMPLETE':
      return complete(ctx, trx, scope, payment, toProcessing);
    case 'FAIL':
      return fail(ctx, trx, scope, payment, outcome, toProcessing);
    case 'COMPLETE_THEN_RETURN': {
      const completed = await complete(ctx, trx, scope, payment, toProcessing);
      const payload = { id: payment.id, reason: outcome.reason };
      if (completed) await enqueueJob(trx, scope, 'transaction.return', payload, wallNow, outcome.returnAfterMs);
      return completed;
    }
    case 'COMPLETE_AFTER':
    case 'FAIL_AFTER': {
      const processing = await moveTransaction(ctx, trx, scope, payment, toProcessing);
      const step =
        outcome.kind === 'COMPLETE_AFTER'
          ? { id: payment.id, result: 'COMPLETE' as const }
          : { id: payment.id, result: 'FAIL' as const, reason: outcome.reason, refundReason: outcome.refundReason };
      if (processing) await enqueueJob(trx, scope, 'transaction.finish', step, wallNow, outcome.delayMs);
      return processing;
    }
    case 'MANUAL':
      return moveTransaction(ctx, trx, scope, payment, toProcessing);
    case 'CONNECTOR': {
      // A bank-file connector gathers payments into files: this one waits, PENDING, for its file's release.
      if (ctx.config.connectors.banks[outcome.connector])
        return holdForBatch(ctx, trx, scope, payment, outcome.connector);
      // PROCESSING now; the call out is a durable job, made after this transaction commits, never in it.
      const processing = await moveTransaction(ctx, trx, scope, payment, toProcessing);
      if (processing) await handToConnector(trx, scope, payment.id, outcome.connector, wallNow);
      return processing;
    }
  }
}

/**
 * A payment routed to a bank-file connector (rails/iso20022): funded, its money held, it stays PENDING with a
 * rail_payments row in state BATCHING until the export puts it in a file (services/bank/export.ts), which
 * moves it to PROCESSING when that file is released. Its funding is written now (process's move would have
 * written it). Run twice, it does nothing the second time: the row is there already.
 */
async function holdForBatch(
  ctx: Ctx,
  trx: Tx,
  scope: Scope,
  payment: TransactionsTable,
  connector: string,
): Promise<TransactionsTable | undefined> {
  const held = await trx
    .selectFrom('rail_payments')
    .select('transaction_id')
    .where('transaction_id', '=', payment.id)
    .executeTakeFirst();
  if (held) return undefined;
  const wallNow = BigInt(wallNowMs(ctx));
  const updatedAt = BigInt(scopeNowMs(ctx, scope));
  const set = { status: 'PENDING' as const, funding: payment.funding, updated_at: updatedAt };
  if (!(await writeMove(trx, payment, { set, id: payment.id, from: 'PENDING' }))) return undefined;
  await deferInsert(trx, 'rail_payments', {
    transaction_id: payment.id,
    platform_id: scope.platformId,
    environment: scope.environment,
    connector,
    rail_reference: endToEndIdOf(payment.id),
    state: 'BATCHING',
    calls: 0n,
    last_error: null,
    attention: null,
    attention_since: null,
    created_at: wallNow,
    updated_at: wallNow,
    bank_file_id: null,
  });
  return underLock(payment, { ...payment, updated_at: updatedAt });
}

/** Records the payment as its connector's and queues the submit; deferred, like the move before it. */
async function handToConnector(trx: Tx, scope: Scope, id: string, connector: string, wallNow: number) {
  const now = BigInt(wallNow);
  await deferInsert(trx, 'rail_payments', {
    transaction_id: id,
    platform_id: scope.platformId,
    environment: scope.environment,
    connector,
    rail_reference: null,
    state: 'SUBMITTING',
    calls: 0n,
    last_error: null,
    attention: null,
    attention_since: null,
    created_at: now,
    updated_at: now,
    bank_file_id: null,
  });
  await enqueueJob(trx, scope, 'connector.submit', { id }, wallNow);
}

/** A settled payment returned by the receiving bank (sandbox quote suffix 005): COMPLETED → FAILED, refunded. */
export async function returnPayment(
  ctx: Ctx,
  trx: Tx,
  scope: Scope,
  payment: TransactionsTable,
  reason: FailureReason,
): Promise<void> {
  if (payment.status !== 'COMPLETED' || !payment.funding) return;
  const postings = returnSettled(movementOf(scope, payment), payment.funding, payment.source_account_id);
  const failed = await moveTransaction(ctx, trx, scope, payment, {
    to: 'FAILED',
    set: {
      failure_reason: reason,
      refund: refundObject(ctx, scope, payment, 'COMPLETED', 'TRANSACTION_FAILED'),
    },
    ledger: { kind: 'RETURN', postings },
    sandboxReturn: true,
  });
  if (failed) await recordRefundEvent(ctx, trx, scope, failed, 'COMPLETED');
}

/** Queues the rail step for a newly funded transaction, durably, in the caller's transaction. */
export async function queueProcessing(ctx: Ctx, trx: Tx, scope: Scope, id: string): Promise<void> {
  await enqueueJob(trx, scope, 'transaction.process', { id }, wallNowMs(ctx));
}
