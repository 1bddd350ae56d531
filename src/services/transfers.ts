import { bindDeps } from './bind.ts';
import { AppError, invalidInput } from '../domain/errors.ts';
import { checkRailOf } from '../domain/account-types.ts';
import { MAX_PAYMENT_MINOR } from '../domain/rate-sources.ts';
import { MANUAL_CONNECTOR, routeFor } from '../domain/connector-routes.ts';
import { isPullable, PULL_RAIL_BY_ACCOUNT_TYPE } from '../rails/pull.ts';
import { transferOutcome, type Outcome } from '../rails/sandbox-outcomes.ts';

/** The sandbox's outcome by account-number suffix, for the dashboard's one-click scenarios. */
export { QUOTE_OUTCOMES, TRANSFER_OUTCOMES, type Outcome } from '../rails/sandbox-outcomes.ts';
import type { JobWorker } from '../jobs/worker.ts';
import type { Tx } from '../store/db.ts';
import type { ExternalAccountsTable, LedgerAccountsTable, TransactionsTable } from '../store/schema.ts';
import { scopeNowMs, type Ctx, type Scope } from '../context.ts';
import { usableExternalAccount } from './external-accounts.ts';
import { ownedInternalAccount, readPaymentAccounts } from './payment-accounts.ts';
import {
  insertTransaction,
  newTransaction,
  toTransaction,
  type Transaction,
  type TransactionService,
} from './transactions/index.ts';

export interface TransferInput {
  source: { accountId: string; currency?: string | undefined };
  destination: { accountId: string; currency?: string | undefined };
  amount: number;
  description?: string | undefined;
}

export interface TransferOutInput extends TransferInput {
  destination: { accountId: string; currency?: string | undefined; paymentRail?: string | undefined };
  remittanceInformation?: string | undefined;
  purposeOfPayment?: string | undefined;
}

/**
 * The rail a payment takes. The sandbox picks its outcome by suffix; production routes a payment to or from
 * an external account by CONNECTORS_FILE (currency, then platform), and leaves the rest, and what no route
 * names, to an operator (`manual`).
 */
export function railOutcome(
  ctx: Ctx,
  scope: Scope,
  route: { currency: string; externalAccount: boolean; pull?: boolean },
  sandbox: () => Outcome,
): Outcome {
  if (scope.environment === 'sandbox') return sandbox();
  const connector = route.externalAccount
    ? routeFor(ctx.config.connectors.routes, route.currency, scope.platformId)
    : MANUAL_CONNECTOR;
  // A connector that cannot pull (a bank-file one pays out only) leaves a pull to an operator.
  if (route.pull && ctx.config.connectors.banks[connector]) return { kind: 'MANUAL' };
  return connector === MANUAL_CONNECTOR ? { kind: 'MANUAL' } : { kind: 'CONNECTOR', connector };
}

function checkSameCurrency(
  input: TransferInput,
  internal: LedgerAccountsTable,
  external: ExternalAccountsTable,
  externalSide: 'source' | 'destination',
): void {
  if (internal.currency !== external.currency) {
    throw new AppError(
      'INVALID_CURRENCY',
      `A transfer moves one currency: the internal account holds ${internal.currency}, the external account ` +
        external.currency,
      {
        field: `${externalSide}.accountId`,
      },
    );
  }
  for (const side of ['source', 'destination'] as const) {
    const given = input[side].currency;
    if (given !== undefined && given !== internal.currency)
      throw invalidInput(
        `${side}.currency`,
        `${side}.currency is ${given} but the accounts hold ${internal.currency}`,
        'currency',
      );
  }
  if (BigInt(input.amount) > MAX_PAYMENT_MINOR) {
    throw new AppError('AMOUNT_OUT_OF_RANGE', `amount must be at most ${MAX_PAYMENT_MINOR}`, {
      field: 'amount',
      max: Number(MAX_PAYMENT_MINOR),
    });
  }
}

/**
 * Same-currency transfers without a quote. Transfer-out debits the internal account at once and queues the
 * rail step; transfer-in pulls from a pullable external account and credits the internal account when the
 * rail settles. Both answer the PENDING transaction.
 */
async function create(
  deps: TransferDeps,
  scope: Scope,
  build: (trx: Tx) => Promise<TransactionsTable>,
): Promise<Transaction> {
  const { ctx, worker, transactions } = deps;
  const result = await ctx.store.tx(async (trx) => {
    const row = await build(trx);
    await insertTransaction(trx, scope, row);
    if (row.funding === 'INTERNAL') await transactions.fund(trx, scope, row, 'INTERNAL');
    await transactions.queueProcessing(trx, scope, row.id);
    return toTransaction(row);
  });
  worker.kick();
  return result;
}

/** What both directions share: one currency, the amount on both sides, no fees. */
function draft(input: TransferInput, currency: string) {
  const amount = BigInt(input.amount);
  return {
    sent_amount: amount,
    sent_currency: currency,
    received_amount: amount,
    received_currency: currency,
    description: input.description ?? null,
  };
}

function transferOut(deps: TransferDeps, scope: Scope, input: TransferOutInput): Promise<Transaction> {
  const { ctx } = deps;
  return create(deps, scope, async (trx) => {
    const rows = await readPaymentAccounts(trx, input.source.accountId, input.destination.accountId);
    const { account: source, owner } = ownedInternalAccount(
      rows.internal,
      scope,
      input.source.accountId,
      'source.accountId',
    );
    const destination = usableExternalAccount(
      rows.external,
      scope,
      input.destination.accountId,
      'destination.accountId',
    );
    checkSameCurrency(input, source, destination, 'destination');
    const { paymentRail } = input.destination;
    checkRailOf(destination.account_type, paymentRail, 'destination.paymentRail');
    return newTransaction(scope, scopeNowMs(ctx, scope), {
      ...draft(input, source.currency),
      ...owner,
      funding: 'INTERNAL',
      type: 'OUTGOING',
      flow: 'TRANSFER_OUT',
      source: JSON.stringify({ sourceType: 'ACCOUNT', accountId: source.id, currency: source.currency }),
      destination: JSON.stringify({
        destinationType: 'ACCOUNT',
        accountId: destination.id,
        ...(paymentRail ? { paymentRail } : {}),
        currency: destination.currency,
      }),
      source_account_id: source.id,
      destination_account_id: destination.id,
      remittance_information: input.remittanceInformation ?? null,
      counterparty_information: input.purposeOfPayment
        ? JSON.stringify({ PURPOSE_OF_PAYMENT: input.purposeOfPayment })
        : null,
      outcome: JSON.stringify(
        railOutcome(ctx, scope, { currency: destination.currency, externalAccount: true }, () =>
          transferOutcome(destination.primary_identifier, 'OUT'),
        ),
      ),
    });
  });
}

function transferIn(deps: TransferDeps, scope: Scope, input: TransferInput): Promise<Transaction> {
  const { ctx } = deps;
  return create(deps, scope, async (trx) => {
    const rows = await readPaymentAccounts(trx, input.destination.accountId, input.source.accountId);
    const source = usableExternalAccount(rows.external, scope, input.source.accountId, 'source.accountId');
    if (!isPullable(source.account_type)) {
      throw invalidInput(
        'source.accountId',
        `${source.account_type} accounts cannot be pulled from; pullable types: ` +
          Object.keys(PULL_RAIL_BY_ACCOUNT_TYPE).join(', '),
        'pullable',
      );
    }
    const { account: destination, owner } = ownedInternalAccount(
      rows.internal,
      scope,
      input.destination.accountId,
      'destination.accountId',
    );
    checkSameCurrency(input, destination, source, 'source');
    return newTransaction(scope, scopeNowMs(ctx, scope), {
      ...draft(input, destination.currency),
      ...owner,
      type: 'INCOMING',
      flow: 'TRANSFER_IN',
      source: JSON.stringify({ sourceType: 'ACCOUNT', accountId: source.id, currency: source.currency }),
      destination: JSON.stringify({
        destinationType: 'ACCOUNT',
        accountId: destination.id,
        currency: destination.currency,
      }),
      source_account_id: source.id,
      destination_account_id: destination.id,
      outcome: JSON.stringify(
        railOutcome(ctx, scope, { currency: source.currency, externalAccount: true, pull: true }, () =>
          transferOutcome(source.primary_identifier, 'IN'),
        ),
      ),
    });
  });
}

interface TransferDeps {
  ctx: Ctx;
  worker: JobWorker;
  transactions: TransactionService;
}

export interface TransferService {
  /**
   * Moves money from an internal account to an external one, funded at once and processed by a job. Raises
   * REFERENCE_NOT_FOUND, INVALID_INPUT, INVALID_CURRENCY, AMOUNT_OUT_OF_RANGE, INSUFFICIENT_BALANCE, CUSTOMER_DELETED.
   */
  transferOut(scope: Scope, input: TransferOutInput): Promise<Transaction>;
  /**
   * Pulls money from a pullable external account into an internal one. Raises REFERENCE_NOT_FOUND, INVALID_INPUT,
   * INVALID_CURRENCY, AMOUNT_OUT_OF_RANGE, CUSTOMER_DELETED.
   */
  transferIn(scope: Scope, input: TransferInput): Promise<Transaction>;
}

export function makeTransferService(ctx: Ctx, worker: JobWorker, transactions: TransactionService): TransferService {
  const deps: TransferDeps = { ctx, worker, transactions };
  return {
    transferOut: bindDeps(deps, transferOut),
    transferIn: bindDeps(deps, transferIn),
  };
}
