// The two ends of a quote: who pays from where (the source) and who receives where (the destination),
// resolved against customers and external accounts, with the rail outcome the destination implies.
import { present } from '../../domain/assert.ts';
import { checkRailOf } from '../../domain/account-types.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { isSupportedCurrency } from '../../domain/currencies.ts';
import { isUmaAddress } from '../../domain/uma.ts';
import { sandboxTestReceiver } from '../../domain/uma-receivers.ts';
import { isPullable } from '../../rails/pull.ts';
import { quoteOutcome, umaOutcome, type Outcome } from '../../rails/sandbox-outcomes.ts';
import type { Tx } from '../../store/db.ts';
import type { ExternalAccountsTable } from '../../store/schema.ts';
import { type Scope } from '../../context.ts';
import type { CustomerService } from '../customers.ts';
import { type ExternalAccountService, usableExternalAccount } from '../external-accounts.ts';
import { requireLookup } from '../receiver-lookups.ts';
import {
  ownedInternalAccount,
  readPaymentAccounts,
  requireInternalAccount,
  type PaymentAccountRows,
} from '../payment-accounts.ts';
import type { QuoteInput } from './queries.ts';

/** How a quote's money reaches the in-flight account when it runs. */
export type FundingPath = 'INTERNAL' | 'PULL' | 'REALTIME';

export interface ResolvedSource {
  echo: Record<string, string>;
  currency: string;
  accountId: string | null;
  path: FundingPath;
  customerId: string | null;
  platformCustomerId: string | null;
  umaAddress: string | null;
}

export interface ResolvedDestination {
  echo: Record<string, string>;
  currency: string;
  accountId: string | null;
  umaAddress: string | null;
  outcome: () => Outcome;
  counterparty: Record<string, string> | null;
}

function required<T>(value: T | undefined, field: string, why: string): T {
  if (value === undefined) throw invalidInput(field, `${field} is required ${why}`, 'required');
  return value;
}

/** What the rail tells a sender about the payee, from the beneficiary on file (keys as the API names them). */
function counterpartyOf(account: ExternalAccountsTable): Record<string, string> | null {
  const beneficiary = (JSON.parse(account.account_info) as { beneficiary?: Record<string, unknown> }).beneficiary;
  if (!beneficiary) return null;
  const info: Record<string, string> = {};
  const name =
    beneficiary.fullName ??
    beneficiary.legalName ??
    (beneficiary.businessInfo as { legalName?: string } | undefined)?.legalName;
  if (typeof name === 'string') info.FULL_NAME = name;
  if (typeof beneficiary.birthDate === 'string') info.BIRTH_DATE = beneficiary.birthDate;
  if (typeof beneficiary.nationality === 'string') info.NATIONALITY = beneficiary.nationality;
  return Object.keys(info).length ? info : null;
}

/** The services a quote's two ends are resolved through. */
export interface QuoteParties {
  customers: CustomerService;
  externalAccounts: ExternalAccountService;
}

/**
 * The rows of a quote's two accounts in one read, when its source is an internal account and its destination
 * an external one (the common quote); undefined for any other pair, whose ends are read as they resolve.
 */
export function readQuoteAccounts(trx: Tx, input: QuoteInput): Promise<PaymentAccountRows> | undefined {
  const from = input.source.sourceType === 'ACCOUNT' ? input.source.accountId : undefined;
  const to = input.destination.destinationType === 'ACCOUNT' ? input.destination.accountId : undefined;
  if (from === undefined || from.startsWith('ExternalAccount:') || to === undefined) return undefined;
  return readPaymentAccounts(trx, from, to);
}

/** `read` holds the source's row when readQuoteAccounts read it. */
export async function resolveSource(
  parties: QuoteParties,
  trx: Tx,
  scope: Scope,
  input: QuoteInput['source'],
  read?: PaymentAccountRows,
): Promise<ResolvedSource> {
  if (input.sourceType === 'REALTIME_FUNDING') {
    const code = required(input.currency, 'source.currency', 'for REALTIME_FUNDING');
    if (!isSupportedCurrency(code))
      throw new AppError('INVALID_CURRENCY', `source.currency ${code} is not supported`, {
        field: 'source.currency',
      });
    const customer = input.customerId ? await parties.customers.requireActive(trx, scope, input.customerId) : undefined;
    const echo: Record<string, string> = { sourceType: 'REALTIME_FUNDING', currency: code };
    if (customer) echo.customerId = customer.id;
    return {
      echo,
      currency: code,
      accountId: null,
      path: 'REALTIME',
      customerId: customer?.id ?? null,
      platformCustomerId: customer?.platform_customer_id ?? null,
      umaAddress: customer?.uma_address ?? null,
    };
  }
  const accountId = required(input.accountId, 'source.accountId', 'for an ACCOUNT source');
  if (accountId.startsWith('ExternalAccount:')) {
    const account = await parties.externalAccounts.requireUsableExternalAccount(
      trx,
      scope,
      accountId,
      'source.accountId',
    );
    if (!isPullable(account.account_type))
      throw invalidInput(
        'source.accountId',
        `${account.account_type} accounts cannot be pulled from, so they cannot fund a quote`,
        'pullable',
      );
    const customer = account.customer_id
      ? await parties.customers.requireActive(trx, scope, account.customer_id)
      : undefined;
    return {
      echo: { sourceType: 'ACCOUNT', accountId, ...(customer ? { customerId: customer.id } : {}) },
      currency: account.currency,
      accountId,
      path: 'PULL',
      customerId: customer?.id ?? null,
      platformCustomerId: customer?.platform_customer_id ?? null,
      umaAddress: customer?.uma_address ?? null,
    };
  }
  const owned = read
    ? ownedInternalAccount(read.internal, scope, accountId, 'source.accountId')
    : await requireInternalAccount(trx, scope, accountId, 'source.accountId');
  const { account, owner, umaAddress: uma } = owned;
  if (input.customerId !== undefined && input.customerId !== owner.customer_id) {
    throw invalidInput('source.customerId', `source.customerId does not own ${accountId}`, 'owner');
  }
  return {
    echo: { sourceType: 'ACCOUNT', accountId, ...(owner.customer_id ? { customerId: owner.customer_id } : {}) },
    currency: account.currency,
    accountId,
    path: 'INTERNAL',
    customerId: owner.customer_id,
    platformCustomerId: owner.platform_customer_id,
    umaAddress: uma,
  };
}

function accountDestination(
  account: ExternalAccountsTable,
  echo: Record<string, unknown>,
  paymentRail: string | undefined,
): ResolvedDestination {
  checkRailOf(account.account_type, paymentRail, 'destination.paymentRail');
  return {
    echo: { ...echo, accountId: account.id, ...(paymentRail ? { paymentRail } : {}), currency: account.currency },
    currency: account.currency,
    accountId: account.id,
    umaAddress: null,
    outcome: () => quoteOutcome(account.primary_identifier),
    counterparty: counterpartyOf(account),
  };
}

/** `read` holds the destination's row when readQuoteAccounts read it. */
export async function resolveDestination(
  parties: QuoteParties,
  trx: Tx,
  scope: Scope,
  input: QuoteInput['destination'],
  read?: PaymentAccountRows,
): Promise<ResolvedDestination> {
  switch (input.destinationType) {
    case 'ACCOUNT': {
      const accountId = required(input.accountId, 'destination.accountId', 'for an ACCOUNT destination');
      const account = read
        ? usableExternalAccount(read.external, scope, accountId, 'destination.accountId')
        : await parties.externalAccounts.requireUsableExternalAccount(trx, scope, accountId, 'destination.accountId');
      return accountDestination(account, { destinationType: 'ACCOUNT' }, input.paymentRail);
    }
    case 'EXTERNAL_ACCOUNT_DETAILS':
      return inlineAccountDestination(parties, trx, scope, input);
    case 'UMA_ADDRESS':
      return umaDestination(scope, input);
  }
}

/** Inline account details: the account is registered in the quote's transaction, then paid like any other. */
async function inlineAccountDestination(
  parties: QuoteParties,
  trx: Tx,
  scope: Scope,
  input: QuoteInput['destination'],
): Promise<ResolvedDestination> {
  const details = required(
    input.externalAccountDetails,
    'destination.externalAccountDetails',
    'for an EXTERNAL_ACCOUNT_DETAILS destination',
  );
  let created;
  try {
    created = await parties.externalAccounts.createExternalAccountInTx(trx, scope, details as never);
  } catch (err) {
    // The account's own rules speak of `accountInfo.x`; here that field lives deeper in the quote.
    if (err instanceof AppError && typeof err.details?.field === 'string') {
      throw new AppError(err.code, err.message, {
        ...err.details,
        field: `destination.externalAccountDetails.${err.details.field}`,
      });
    }
    throw err;
  }
  const account = await parties.externalAccounts.requireUsableExternalAccount(
    trx,
    scope,
    created.id,
    'destination.externalAccountDetails',
  );
  return accountDestination(
    account,
    { destinationType: 'EXTERNAL_ACCOUNT_DETAILS', externalAccountDetails: details },
    input.paymentRail,
  );
}

/** A UMA address: in the sandbox, one of the documented test receivers; production needs a connector. */
function umaDestination(scope: Scope, input: QuoteInput['destination']): ResolvedDestination {
  const umaAddress = required(input.umaAddress, 'destination.umaAddress', 'for a UMA_ADDRESS destination');
  if (scope.environment !== 'sandbox') {
    throw new AppError(
      'NOT_IMPLEMENTED',
      'UMA payments need a UMA network connector; this installation has none configured for production',
    );
  }
  const receiver = isUmaAddress(umaAddress) ? sandboxTestReceiver(umaAddress) : undefined;
  if (!receiver)
    throw new AppError(
      'UMA_NOT_FOUND',
      `No UMA receiver ${umaAddress} in the sandbox; use one of the documented test addresses`,
      { field: 'destination.umaAddress' },
    );
  const code = input.currency ?? present(receiver.currencies[0], 'a test receiver takes at least one currency');
  if (!receiver.currencies.includes(code))
    throw invalidInput(
      'destination.currency',
      `${umaAddress} receives ${receiver.currencies.join(', ')}, not ${code}`,
      'currency',
    );
  return {
    echo: { destinationType: 'UMA_ADDRESS', umaAddress, currency: code },
    currency: code,
    accountId: null,
    umaAddress,
    outcome: () => umaOutcome(receiver),
    counterparty: null,
  };
}

/**
 * A lookupId (from GET /receiver/...) must be this platform's and name the receiver being paid. It is
 * optional here: the sandbox's test receivers and accounts need no lookup to be paid.
 */
export async function checkLookup(
  trx: Tx,
  scope: Scope,
  lookupId: string,
  destination: ResolvedDestination,
): Promise<void> {
  const { receiver } = await requireLookup(trx, scope, lookupId);
  const matches =
    receiver.type === 'UMA_ADDRESS'
      ? receiver.umaAddress === destination.umaAddress
      : receiver.accountId === destination.accountId;
  if (!matches)
    throw invalidInput(
      'lookupId',
      `${lookupId} looked up another receiver than this quote's destination`,
      'lookupReceiver',
    );
}
