// The two accounts a payment moves money between, read for its request: the platform's internal account
// (with the customer who owns it) and an external account. Transfers and quotes read both in one statement,
// a round trip fewer on PostgreSQL; each check is a function of the row, apart from the read.
import { AppError, notFound } from '../domain/errors.ts';
import type { Tx } from '../store/db.ts';
import { statement } from '../store/compiled.ts';
import { everyColumnOf, prefixedColumns, splitPrefixed } from '../store/joined-rows.ts';
import type { ExternalAccountsTable, LedgerAccountsTable, TransactionsTable } from '../store/schema.ts';
import { inScope, type Scope } from '../context.ts';
import { accountById } from './external-accounts.ts';
import { INTERNAL_ACCOUNT_KINDS } from './internal-accounts.ts';

export interface OwnedInternalAccount {
  account: LedgerAccountsTable;
  /** The customer behind a customer account (nulls for the platform's own), as transactions record it. */
  owner: Pick<TransactionsTable, 'customer_id' | 'platform_customer_id'>;
  umaAddress: string | null;
}

/** What an internal account's owner adds to it on a payment's path. */
const OWNER_COLUMNS = ['platform_customer_id', 'uma_address', 'is_deleted'] as const;

const internalAccountById = statement((db, { id }: { id: string }) =>
  db
    .selectFrom('ledger_accounts')
    .leftJoin('customers', 'customers.id', 'ledger_accounts.owner')
    .selectAll('ledger_accounts')
    .select(OWNER_COLUMNS.map((column) => `customers.${column}` as const))
    .where('ledger_accounts.id', '=', id)
    .where('ledger_accounts.kind', 'in', INTERNAL_ACCOUNT_KINDS),
);

export type InternalAccountRow = NonNullable<Awaited<ReturnType<typeof internalAccountById.first>>>;

/**
 * `row` (read by id) as an internal account in scope with its owner, or the error that names `field`. A
 * deleted customer's accounts move no more money.
 */
export function ownedInternalAccount(
  row: InternalAccountRow | undefined,
  scope: Scope,
  id: string,
  field: string,
): OwnedInternalAccount {
  if (!row || !inScope(row, scope)) throw notFound('Internal account', id);
  const { platform_customer_id, uma_address, is_deleted, ...account } = row;
  if (is_deleted === 1n)
    throw new AppError('CUSTOMER_DELETED', `The customer owning ${id} has been deleted`, { field });
  const isCustomer = account.kind === 'CUSTOMER';
  return {
    account,
    owner: {
      customer_id: isCustomer ? account.owner : null,
      platform_customer_id: isCustomer ? platform_customer_id : null,
    },
    umaAddress: isCustomer ? uma_address : null,
  };
}

/** An internal account in scope with its owner, in one query (it is on every payment's path). */
export async function requireInternalAccount(
  trx: Tx,
  scope: Scope,
  id: string,
  field: string,
): Promise<OwnedInternalAccount> {
  return ownedInternalAccount(await internalAccountById.first(trx, { id }), scope, id, field);
}

/** Read beside an external account's columns, an internal account's (and its owner's) carry this prefix. */
const INTERNAL = 'internal__';
const LEDGER_ACCOUNT_COLUMNS = everyColumnOf<LedgerAccountsTable>()([
  'id',
  'platform_id',
  'environment',
  'kind',
  'owner',
  'currency',
  'balance',
  'created_at',
  'updated_at',
]);

/** A payment's two accounts in one statement. It answers a row only when both exist. */
const paymentAccountsById = statement((db, { internalId, externalId }: { internalId: string; externalId: string }) =>
  db
    .selectFrom('ledger_accounts')
    .innerJoin('external_accounts', (join) => join.on('external_accounts.id', '=', externalId))
    .leftJoin('customers', 'customers.id', 'ledger_accounts.owner')
    .selectAll('external_accounts')
    .select(prefixedColumns('ledger_accounts', LEDGER_ACCOUNT_COLUMNS, INTERNAL))
    .select(prefixedColumns('customers', OWNER_COLUMNS, INTERNAL))
    .where('ledger_accounts.id', '=', internalId)
    .where('ledger_accounts.kind', 'in', INTERNAL_ACCOUNT_KINDS),
);

/** A payment's internal and external account rows as read by id, unchecked: undefined where there is none. */
export interface PaymentAccountRows {
  internal: InternalAccountRow | undefined;
  external: ExternalAccountsTable | undefined;
}

/**
 * The rows of a payment's internal and external accounts, for ownedInternalAccount and usableExternalAccount
 * to check. When one of them does not exist, the joined read has no row, and each is read alone so that the
 * checks name the one that is missing.
 */
export async function readPaymentAccounts(
  trx: Tx,
  internalId: string,
  externalId: string,
): Promise<PaymentAccountRows> {
  const row = await paymentAccountsById.first(trx, { internalId, externalId });
  if (!row) {
    return {
      internal: await internalAccountById.first(trx, { id: internalId }),
      external: await accountById.first(trx, { id: externalId }),
    };
  }
  const { plain, prefixed } = splitPrefixed(row, INTERNAL);
  return { internal: prefixed, external: plain };
}
