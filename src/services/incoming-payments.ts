/**
 * Incoming UMA payments (sandbox: POST /sandbox/uma/receive) and the platform's approval of them.
 *
 * 1. receive: one database transaction creates the INCOMING transaction in PENDING (flow INCOMING_UMA)
 *    and records INCOMING_PAYMENT.PENDING, whose delivery job is queued with it.
 * 2. After commit the request runs that delivery job itself (JobWorker.runNow), so the approval webhook
 *    goes out through the one signed, logged delivery path, and the platform's answer is acted on (in the
 *    transaction that records the attempt: see WebhookService.onAnswer) before the call returns.
 * 3. The answer (domain/incoming-payments decideApproval): approve → PROCESSING → COMPLETED, credited;
 *    202 → stays PENDING with a timeout job; 403 → REJECTED; 422 / errors → FAILED.
 * 4. /approve and /reject decide a PENDING payment; the timeout job fails one nobody decided.
 *
 * Every step changes the transaction through moveTransaction (state-guarded, with its ledger entry and
 * event), after locking the row, so approve, reject, a late webhook answer and the timeout race safely:
 * the first to commit wins and the others find the payment no longer PENDING.
 */
import { bindDeps } from './bind.ts';
import { randomBytes } from 'node:crypto';
import { AppError, notFound } from '../domain/errors.ts';
import {
  APPROVAL_TIMEOUT_MS,
  checkReceiveInput,
  decideApproval,
  rejectionDetails,
  type ApprovalDecision,
  type FailureDetails,
  type UmaReceiveInput,
} from '../domain/incoming-payments.ts';
import { callOffJob, enqueueOwnedJob, ownedJobId } from '../jobs/queue.ts';
import type { JobWorker } from '../jobs/worker.ts';
import { tracksBalance } from '../ledger/accounts.ts';
import type { Outcome } from '../rails/sandbox-outcomes.ts';
import type { Tx } from '../store/db.ts';
import type { TransactionsTable } from '../store/schema.ts';
import type { WebhookService } from '../webhooks/service.ts';
import { scopeNowMs, type Ctx, type Scope, wallNowMs } from '../context.ts';
import { scopedCustomers } from './customers.ts';
import { scopedExternalAccounts } from './external-accounts.ts';
import { scopedInternalAccounts } from './internal-accounts.ts';
import {
  insertTransactionForDelivery,
  moveTransaction,
  newTransaction,
  type Transaction,
  type TransactionService,
} from './transactions/index.ts';
import { railOutcome } from './connectors/routing.ts';

export const APPROVAL_EVENT = 'INCOMING_PAYMENT.PENDING';

const COMPLETE: Outcome = { kind: 'COMPLETE' };

function notPending(id: string, status: string): AppError {
  return new AppError(
    'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL',
    `Transaction ${id} is not an incoming payment awaiting approval (it is ${status})`,
    { id, status },
  );
}

/**
 * Where the money goes: the customer's ACTIVE default UMA deposit account in this currency, else their internal
 * account.
 */
async function depositAccount(trx: Tx, scope: Scope, customerId: string, currency: string): Promise<string> {
  const external = await scopedExternalAccounts(trx, scope)
    .select('external_accounts.id')
    .where('external_accounts.customer_id', '=', customerId)
    .where('external_accounts.default_uma_deposit', '=', 1n)
    .where('external_accounts.status', '=', 'ACTIVE')
    .where('external_accounts.currency', '=', currency)
    .executeTakeFirst();
  if (external) return external.id;
  const internal = await scopedInternalAccounts(trx, scope)
    .select('ledger_accounts.id')
    .where('ledger_accounts.kind', '=', 'CUSTOMER')
    .where('ledger_accounts.owner', '=', customerId)
    .where('ledger_accounts.currency', '=', currency)
    .executeTakeFirst();
  if (!internal) {
    throw new AppError('INVALID_CURRENCY', `The receiving customer has no account in ${currency}`, {
      field: 'receivingCurrencyCode',
    });
  }
  return internal.id;
}

/**
 * Approves a PENDING incoming payment: PENDING → PROCESSING → (rail outcome) COMPLETED. An internal
 * account is credited on completion (SETTLEMENT −R, internal +R); money for an external deposit account
 * is first received into flight (FUND: SETTLEMENT −R, IN_FLIGHT +R) and leaves through settlement when
 * it completes (SETTLE: IN_FLIGHT −R, SETTLEMENT +R), so it never touches a balance of ours.
 */
async function approveRow(
  deps: IncomingPaymentDeps,
  trx: Tx,
  scope: Scope,
  row: TransactionsTable,
  receiverCustomerInfo?: Record<string, unknown>,
): Promise<TransactionsTable | undefined> {
  const { transactions } = deps;
  let current = row;
  if (receiverCustomerInfo !== undefined) {
    // What the platform told us about its receiving customer, kept as the payment's counterparty information.
    const counterparty_information = JSON.stringify(receiverCustomerInfo);
    await trx
      .updateTable('transactions')
      .set({ counterparty_information })
      .where('id', '=', row.id)
      .where('status', '=', 'PENDING')
      .execute();
    current = { ...current, counterparty_information };
  }
  if (!tracksBalance(current.destination_account_id!))
    current = await transactions.fund(trx, scope, current, 'EXTERNAL');
  return transactions.process(trx, scope, current);
}

async function end(
  deps: IncomingPaymentDeps,
  trx: Tx,
  scope: Scope,
  row: TransactionsTable,
  to: 'REJECTED' | 'FAILED',
  details: FailureDetails,
  failureReason?: string,
): Promise<TransactionsTable | undefined> {
  const { ctx } = deps;
  const patch: Partial<TransactionsTable> = {
    failure_details: Object.keys(details).length > 0 ? JSON.stringify(details) : null,
  };
  if (failureReason !== undefined) patch.failure_reason = failureReason;
  return moveTransaction(ctx, trx, scope, row, { to, set: patch });
}

async function apply(
  deps: IncomingPaymentDeps,
  trx: Tx,
  scope: Scope,
  row: TransactionsTable,
  decision: ApprovalDecision,
): Promise<void> {
  const { ctx } = deps;
  if (decision.kind === 'AWAIT') {
    // The platform decides through /approve or /reject; the sandbox clock moves this job like any other.
    // A second 202 (to a redelivered request) keeps the first deadline.
    const now = wallNowMs(ctx);
    await enqueueOwnedJob(trx, scope, 'incoming.approval-timeout', { id: row.id }, now, APPROVAL_TIMEOUT_MS, row.id);
    return;
  }
  // Decided by a later answer: a timeout queued by an earlier 202 has nothing left to do.
  await callOffTimeout(deps, trx, row.id);
  switch (decision.kind) {
    case 'APPROVE':
      await approveRow(deps, trx, scope, row, decision.receiverCustomerInfo);
      return;
    case 'REJECT':
      await end(deps, trx, scope, row, 'REJECTED', decision.details);
      return;
    case 'FAIL':
      await end(deps, trx, scope, row, 'FAILED', decision.details, decision.failureReason);
      return;
  }
}

/** Calls off the approval timeout of a payment the platform has decided (none may have been queued). */
function callOffTimeout(deps: IncomingPaymentDeps, trx: Tx, paymentId: string): Promise<void> {
  return callOffJob(trx, ownedJobId(paymentId), wallNowMs(deps.ctx));
}

/** The row, locked, if it is an incoming UMA payment still awaiting its approval. */
async function awaiting(
  deps: IncomingPaymentDeps,
  trx: Tx,
  scope: Scope,
  id: string,
): Promise<TransactionsTable | undefined> {
  const { transactions } = deps;
  const row = await transactions.loadForUpdate(trx, scope, id);
  return row && row.flow === 'INCOMING_UMA' && row.status === 'PENDING' ? row : undefined;
}

/** /approve and /reject: 404 outside this scope, 409 unless the payment awaits approval. */
async function decide(
  deps: IncomingPaymentDeps,
  scope: Scope,
  id: string,
  act: (trx: Tx, row: TransactionsTable) => Promise<TransactionsTable | undefined>,
): Promise<Transaction> {
  const { ctx, worker, transactions } = deps;
  await ctx.store.tx(async (trx) => {
    const row = await transactions.loadForUpdate(trx, scope, id);
    if (!row) throw notFound('Transaction', id, 'TRANSACTION_NOT_FOUND');
    if (row.flow !== 'INCOMING_UMA' || row.status !== 'PENDING') throw notPending(id, row.status);
    if (!(await act(trx, row))) throw notPending(id, 'no longer PENDING');
    await callOffTimeout(deps, trx, id);
  });
  worker.kick();
  return transactions.get(scope, id);
}

async function receive(deps: IncomingPaymentDeps, scope: Scope, input: UmaReceiveInput): Promise<Transaction> {
  const { ctx, worker, transactions } = deps;
  if (scope.environment !== 'sandbox')
    throw new AppError('FORBIDDEN', 'Sandbox endpoints cannot be called with production credentials');
  checkReceiveInput(input);
  const currency = input.receivingCurrencyCode;
  const amount = BigInt(input.receivingCurrencyAmount);
  const { id, jobId } = await ctx.store.tx(async (trx) => {
    let q = scopedCustomers(trx, scope).selectAll().where('customers.is_deleted', '=', 0n);
    q =
      input.customerId !== undefined
        ? q.where('customers.id', '=', input.customerId)
        : q.where('customers.uma_address', '=', input.receiverUmaAddress!);
    const customer = await q.executeTakeFirst();
    if (!customer) {
      const field = input.customerId !== undefined ? 'customerId' : 'receiverUmaAddress';
      throw new AppError(
        'USER_NOT_FOUND',
        `No customer of this platform has ${field} ${input.customerId ?? input.receiverUmaAddress}`,
        { field },
      );
    }
    const accountId = await depositAccount(trx, scope, customer.id, currency);
    const row = newTransaction(scope, scopeNowMs(ctx, scope), {
      type: 'INCOMING',
      flow: 'INCOMING_UMA',
      source: JSON.stringify({ sourceType: 'UMA_ADDRESS', umaAddress: input.senderUmaAddress, currency }),
      destination: JSON.stringify({ destinationType: 'ACCOUNT', accountId, currency }),
      destination_account_id: accountId,
      customer_id: customer.id,
      platform_customer_id: customer.platform_customer_id,
      sender_uma_address: input.senderUmaAddress,
      receiver_uma_address: customer.uma_address,
      sent_amount: amount,
      sent_currency: currency,
      received_amount: amount,
      received_currency: currency,
      reference: `UMA-${randomBytes(6).toString('hex').toUpperCase()}`,
      // Crediting an internal account needs no rail; an external deposit account is paid out like a transfer.
      outcome: JSON.stringify(
        tracksBalance(accountId)
          ? COMPLETE
          : railOutcome(ctx, scope, { currency, externalAccount: false }, () => COMPLETE),
      ),
    });
    return { id: row.id, jobId: await insertTransactionForDelivery(trx, scope, row) };
  });
  // Ask for the approval now: the answer has been acted on when this returns (unless a background
  // worker claimed the delivery first; then the outcome follows as INCOMING_PAYMENT.* webhooks).
  await worker.runNow(jobId);
  worker.kick();
  return transactions.get(scope, id);
}

function approve(
  deps: IncomingPaymentDeps,
  scope: Scope,
  id: string,
  receiverCustomerInfo?: Record<string, unknown>,
): Promise<Transaction> {
  return decide(deps, scope, id, (trx, row) => approveRow(deps, trx, scope, row, receiverCustomerInfo));
}

function reject(deps: IncomingPaymentDeps, scope: Scope, id: string, reason?: string): Promise<Transaction> {
  return decide(deps, scope, id, (trx, row) => end(deps, trx, scope, row, 'REJECTED', rejectionDetails(reason)));
}

interface IncomingPaymentDeps {
  ctx: Ctx;
  worker: JobWorker;
  transactions: TransactionService;
  webhooks: WebhookService;
}

export interface IncomingPaymentService {
  /**
   * The sandbox's simulated incoming UMA payment to a customer, awaiting the platform's approval. Raises FORBIDDEN
   * (production), USER_NOT_FOUND, INVALID_CURRENCY.
   */
  receive(scope: Scope, input: UmaReceiveInput): Promise<Transaction>;
  /** Approves a payment awaiting approval. Raises TRANSACTION_NOT_FOUND, TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL. */
  approve(scope: Scope, id: string, receiverCustomerInfo?: Record<string, unknown>): Promise<Transaction>;
  /** Rejects a payment awaiting approval. Raises TRANSACTION_NOT_FOUND, TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL. */
  reject(scope: Scope, id: string, reason?: string): Promise<Transaction>;
}

/** Also registers the approval's answer (a webhook reply) and its time-out job. */
export function makeIncomingPaymentService(
  ctx: Ctx,
  worker: JobWorker,
  transactions: TransactionService,
  webhooks: WebhookService,
): IncomingPaymentService {
  const deps: IncomingPaymentDeps = { ctx, worker, transactions, webhooks };
  webhooks.onAnswer(APPROVAL_EVENT, async (trx, scope, event, answer) => {
    // Answers to a payment already decided (by /approve, /reject, the timeout or an earlier answer) change nothing.
    const row = await awaiting(deps, trx, scope, event.object_id);
    if (row) await apply(deps, trx, scope, row, decideApproval(answer, scope.environment));
  });
  worker.registerInTransaction('incoming.approval-timeout', async (trx, { id }, _job, scope) => {
    const row = await awaiting(deps, trx, scope, id);
    if (row) await end(deps, trx, scope, row, 'FAILED', {}, 'PAYMENT_APPROVAL_TIMED_OUT');
  });
  return {
    receive: bindDeps(deps, receive),
    approve: bindDeps(deps, approve),
    reject: bindDeps(deps, reject),
  };
}
