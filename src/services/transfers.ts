import { AppError, invalidInput, notFound } from '../domain/errors.ts';
import { MAX_PAYMENT_MINOR } from '../domain/rate-sources.ts';
import { isPullable, PULL_RAIL_BY_ACCOUNT_TYPE } from '../rails/pull.ts';
import { transferOutcome, type Outcome } from '../rails/sandbox-outcomes.ts';
import type { JobWorker } from '../jobs/worker.ts';
import type { Tx } from '../store/db.ts';
import type { ExternalAccountsTable, LedgerAccountsTable, TransactionsTable } from '../store/schema.ts';
import { nowMs, type Ctx, type Scope } from './context.ts';
import type { ExternalAccountService } from './external-accounts.ts';
import { idempotent, type Stored } from './idempotency.ts';
import { scopedInternalAccounts } from './internal-accounts.ts';
import { insertTransaction, toTransaction, type Transaction, type TransactionService } from './transactions.ts';

export interface TransferInput {
  source: { accountId: string; currency?: string | undefined };
  destination: { accountId: string; currency?: string | undefined };
  amount: number;
  description?: string | undefined;
}

/** The production connector leaves every payment to an operator; the sandbox picks by suffix. */
export function railOutcome(scope: Scope, sandbox: () => Outcome): Outcome {
  return scope.environment === 'sandbox' ? sandbox() : { kind: 'MANUAL' };
}

export async function requireInternalAccount(trx: Tx, scope: Scope, id: string, field: string): Promise<LedgerAccountsTable> {
  const row = await scopedInternalAccounts(trx, scope).selectAll().where('ledger_accounts.id', '=', id).executeTakeFirst();
  if (!row) throw notFound('Internal account', id);
  if (row.kind !== 'CUSTOMER' && row.kind !== 'PLATFORM') throw invalidInput(field, `${id} is not an internal account`);
  return row;
}

/** The customer behind an internal account, for customerId and platformCustomerId on the transaction. */
export async function ownerOf(trx: Tx, account: LedgerAccountsTable): Promise<Pick<TransactionsTable, 'customer_id' | 'platform_customer_id'>> {
  if (account.kind !== 'CUSTOMER') return { customer_id: null, platform_customer_id: null };
  const customer = await trx.selectFrom('customers').select('platform_customer_id').where('id', '=', account.owner).executeTakeFirst();
  return { customer_id: account.owner, platform_customer_id: customer?.platform_customer_id ?? null };
}

function checkSameCurrency(input: TransferInput, internal: LedgerAccountsTable, external: ExternalAccountsTable, externalSide: 'source' | 'destination'): void {
  if (internal.currency !== external.currency) {
    throw new AppError('INVALID_CURRENCY', `A transfer moves one currency: the internal account holds ${internal.currency}, the external account ${external.currency}`, {
      field: `${externalSide}.accountId`,
    });
  }
  for (const side of ['source', 'destination'] as const) {
    const given = input[side].currency;
    if (given !== undefined && given !== internal.currency) throw invalidInput(`${side}.currency`, `${side}.currency is ${given} but the accounts hold ${internal.currency}`, 'currency');
  }
  if (BigInt(input.amount) > MAX_PAYMENT_MINOR) {
    throw new AppError('AMOUNT_OUT_OF_RANGE', `amount must be at most ${MAX_PAYMENT_MINOR}`, { field: 'amount', max: Number(MAX_PAYMENT_MINOR) });
  }
}

/**
 * Same-currency transfers without a quote. Transfer-out debits the internal account at once and queues the
 * rail step; transfer-in pulls from a pullable external account and credits the internal account when the
 * rail settles. Both answer 201 with the PENDING transaction and honour Idempotency-Key.
 */
export function makeTransferService(ctx: Ctx, worker: JobWorker, transactions: TransactionService, externalAccounts: ExternalAccountService) {
  async function create(scope: Scope, operation: string, key: string | undefined, input: TransferInput, build: (trx: Tx) => Promise<TransactionsTable>): Promise<Stored<Transaction>> {
    const result = await idempotent<Transaction>(ctx, scope, operation, key, input, async (trx) => {
      let row = await build(trx);
      await insertTransaction(ctx, trx, scope, row);
      if (row.type === 'OUTGOING') row = await transactions.fund(trx, scope, row, 'INTERNAL');
      await transactions.queueProcessing(trx, scope, row.id);
      return { status: 201, body: toTransaction(row) };
    });
    worker.kick();
    return result;
  }

  function baseRow(scope: Scope, input: TransferInput, currency: string): Omit<TransactionsTable, 'type' | 'flow' | 'source' | 'destination' | 'source_account_id' | 'destination_account_id' | 'outcome' | 'customer_id' | 'platform_customer_id'> {
    const now = BigInt(nowMs(ctx, scope));
    return {
      id: transactions.newTransactionId(),
      platform_id: scope.platformId,
      environment: scope.environment,
      status: 'PENDING',
      funding: null,
      sender_uma_address: null,
      receiver_uma_address: null,
      sent_amount: BigInt(input.amount),
      sent_currency: currency,
      received_amount: BigInt(input.amount),
      received_currency: currency,
      fees: 0n,
      exchange_rate: null,
      rate_details: null,
      quote_id: null,
      description: input.description ?? null,
      reference: null,
      payment_instructions: null,
      counterparty_information: null,
      failure_reason: null,
      failure_details: null,
      refund: null,
      settled_at: null,
      created_at: now,
      updated_at: now,
    };
  }

  return {
    transferOut(scope: Scope, input: TransferInput, idempotencyKey?: string): Promise<Stored<Transaction>> {
      return create(scope, 'transfer-out', idempotencyKey, input, async (trx) => {
        const source = await requireInternalAccount(trx, scope, input.source.accountId, 'source.accountId');
        const destination = await externalAccounts.requireUsableExternalAccount(trx, scope, input.destination.accountId, 'destination.accountId');
        checkSameCurrency(input, source, destination, 'destination');
        return {
          ...baseRow(scope, input, source.currency),
          ...(await ownerOf(trx, source)),
          type: 'OUTGOING',
          flow: 'TRANSFER_OUT',
          source: JSON.stringify({ sourceType: 'ACCOUNT', accountId: source.id, currency: source.currency }),
          destination: JSON.stringify({ destinationType: 'ACCOUNT', accountId: destination.id, currency: destination.currency }),
          source_account_id: source.id,
          destination_account_id: destination.id,
          outcome: JSON.stringify(railOutcome(scope, () => transferOutcome(destination.primary_identifier))),
        };
      });
    },

    transferIn(scope: Scope, input: TransferInput, idempotencyKey?: string): Promise<Stored<Transaction>> {
      return create(scope, 'transfer-in', idempotencyKey, input, async (trx) => {
        const source = await externalAccounts.requireUsableExternalAccount(trx, scope, input.source.accountId, 'source.accountId');
        if (!isPullable(source.account_type)) {
          throw invalidInput('source.accountId', `${source.account_type} accounts cannot be pulled from; pullable types: ${Object.keys(PULL_RAIL_BY_ACCOUNT_TYPE).join(', ')}`, 'pullable');
        }
        const destination = await requireInternalAccount(trx, scope, input.destination.accountId, 'destination.accountId');
        checkSameCurrency(input, destination, source, 'source');
        return {
          ...baseRow(scope, input, destination.currency),
          ...(await ownerOf(trx, destination)),
          type: 'INCOMING',
          flow: 'TRANSFER_IN',
          source: JSON.stringify({ sourceType: 'ACCOUNT', accountId: source.id, currency: source.currency }),
          destination: JSON.stringify({ destinationType: 'ACCOUNT', accountId: destination.id, currency: destination.currency }),
          source_account_id: source.id,
          destination_account_id: destination.id,
          outcome: JSON.stringify(railOutcome(scope, () => transferOutcome(source.primary_identifier))),
        };
      });
    },
  };
}

export type TransferService = ReturnType<typeof makeTransferService>;
