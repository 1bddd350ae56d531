import { bindDeps } from './bind.ts';
import type { Static } from '@sinclair/typebox';
import type { ExternalAccount as ExternalAccountSchema } from '../wire/external-accounts.ts';
import {
  accountTypeRule,
  ACCOUNT_TRANSITIONS,
  isUsable,
  validateExternalAccount,
  type ExternalAccountInput,
} from '../domain/account-types.ts';
import { verifyBeneficiary } from '../domain/beneficiary-verification.ts';
import { AppError, conflict, invalidInput, notFound } from '../domain/errors.ts';
import { iso } from '../domain/clock.ts';
import { newId } from '../domain/ids.ts';
import { isUniqueViolation, type Db, type Tx } from '../store/db.ts';
import { statement } from '../store/compiled.ts';
import type { ExternalAccountsTable } from '../store/schema.ts';
import { keysetPage, mapPage } from '../store/paging.ts';
import type { Page, PageRequest } from '../domain/paging.ts';
import { inScope, type Ctx, type Scope, scopeNowMs } from '../context.ts';
import type { CustomerService } from './customers.ts';

export type ExternalAccount = Static<typeof ExternalAccountSchema>;
export type OwnershipType = 'FIRST_PARTY' | 'THIRD_PARTY';

/** A create request, from the HTTP body or from a quote's inline externalAccountDetails. */
export interface ExternalAccountCreateInput extends ExternalAccountInput {
  /** Omitted or null: the account belongs to the platform. */
  customerId?: string | null | undefined;
  defaultUmaDepositAccount?: boolean | undefined;
  ownershipType?: OwnershipType | undefined;
}

const PLATFORM_OWNER = 'platform';

export function toExternalAccount(row: ExternalAccountsTable): ExternalAccount {
  const accountInfo = JSON.parse(row.account_info) as ExternalAccount['accountInfo'];
  // An account registered without rails takes its type's rails: say which, as the contract requires.
  const rails = accountTypeRule(row.account_type)?.paymentRails ?? [];
  if (accountInfo.paymentRails === undefined && rails.length > 0) accountInfo.paymentRails = [...rails];
  const account: ExternalAccount = {
    id: row.id,
    status: row.status,
    currency: row.currency,
    accountInfo,
    customerId: row.customer_id,
    defaultUmaDepositAccount: row.default_uma_deposit === 1n,
    beneficiaryVerificationStatus:
      row.beneficiary_verification_status as ExternalAccount['beneficiaryVerificationStatus'],
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
  if (row.platform_account_id !== null) account.platformAccountId = row.platform_account_id;
  if (row.beneficiary_verified_name !== null)
    account.beneficiaryVerifiedData = { fullName: row.beneficiary_verified_name };
  if (row.crypto_network !== null) account.cryptoNetwork = row.crypto_network;
  if (row.ownership_type !== null) account.ownershipType = row.ownership_type as OwnershipType;
  return account;
}

export function scopedExternalAccounts(db: Db | Tx, scope: Scope) {
  return db
    .selectFrom('external_accounts')
    .where('external_accounts.platform_id', '=', scope.platformId)
    .where('external_accounts.environment', '=', scope.environment);
}

function duplicate(): AppError {
  return conflict(
    'ACCOUNT_ALREADY_EXISTS',
    'This owner already has an external account with the same primary identifier and currency that is not INACTIVE',
    { field: 'accountInfo', rule: 'unique' },
  );
}

/**
 * Which routes see an account: the customer routes answer for every account in scope, the platform routes only for the
 * platform's own.
 */
export type AccountView = 'any' | 'platform';

/** Any account by id, in or out of scope: callers check the scope (usableExternalAccount). */
export const accountById = statement((db, { id }: { id: string }) =>
  db.selectFrom('external_accounts').selectAll().where('id', '=', id),
);
const platformAccountById = statement((db, { id }: { id: string }) =>
  db.selectFrom('external_accounts').selectAll().where('id', '=', id).where('customer_id', 'is', null),
);

/** `row` (read by id) if it is in scope; the 404 otherwise. */
function inScopeOrNotFound(row: ExternalAccountsTable | undefined, scope: Scope, id: string): ExternalAccountsTable {
  if (!row || !inScope(row, scope)) throw notFound('External account', id);
  return row;
}

async function load(trx: Db | Tx, scope: Scope, id: string, view: AccountView = 'any'): Promise<ExternalAccountsTable> {
  return inScopeOrNotFound(
    await (view === 'platform' ? platformAccountById : accountById).first(trx, { id }),
    scope,
    id,
  );
}

/**
 * Serializes account creation per owner on PostgreSQL: the owner's row (customer, or the platform's
 * configuration for platform accounts) is locked before the duplicate check and the default-deposit
 * swap, so two concurrent creates cannot both pass the check or both end as the default. SQLite
 * transactions already run one at a time (`begin immediate`).
 */
async function lockOwner(deps: ExternalAccountDeps, trx: Tx, scope: Scope, customerId: string | null): Promise<void> {
  const { ctx } = deps;
  const { store } = ctx;
  if (store.engine !== 'postgres') return;
  if (customerId) await trx.selectFrom('customers').select('id').where('id', '=', customerId).forUpdate().execute();
  else
    await trx
      .selectFrom('platform_configs')
      .select('id')
      .where('platform_id', '=', scope.platformId)
      .where('environment', '=', scope.environment)
      .forUpdate()
      .execute();
}

/**
 * Creates an external account inside the caller's transaction, with every rule: the account-type
 * table, the beneficiary, the duplicate rule, the default-deposit swap and (sandbox) the simulated
 * name check, whose error suffixes throw before anything is written. Quotes call this for inline
 * EXTERNAL_ACCOUNT_DETAILS so both paths are the same code.
 */
async function createExternalAccountInTx(
  deps: ExternalAccountDeps,
  trx: Tx,
  scope: Scope,
  input: ExternalAccountCreateInput,
): Promise<ExternalAccount> {
  const { ctx, customers } = deps;
  const customerId = input.customerId ?? null;
  const account = validateExternalAccount(input, customerId ? 'customer' : 'platform');
  const makeDefault = input.defaultUmaDepositAccount === true;
  if (makeDefault && !customerId) {
    throw invalidInput(
      'defaultUmaDepositAccount',
      "defaultUmaDepositAccount applies to a customer's account; this one belongs to the platform",
      'customerOnly',
    );
  }
  if (customerId) await customers.requireActive(trx, scope, customerId);
  const verification = verifyBeneficiary(scope.environment, account.primaryIdentifier, account.beneficiaryName);

  await lockOwner(deps, trx, scope, customerId);
  const owner = customerId ?? PLATFORM_OWNER;
  const existing = await scopedExternalAccounts(trx, scope)
    .select('id')
    .where('owner', '=', owner)
    .where('currency', '=', account.currency)
    .where('primary_identifier', '=', account.primaryIdentifier)
    .where('status', '<>', 'INACTIVE')
    .executeTakeFirst();
  if (existing) throw duplicate();

  const now = BigInt(scopeNowMs(ctx, scope));
  if (makeDefault) {
    await trx
      .updateTable('external_accounts')
      .set({ default_uma_deposit: 0n, updated_at: now })
      .where('customer_id', '=', customerId)
      .where('default_uma_deposit', '=', 1n)
      .execute();
  }
  const row: ExternalAccountsTable = {
    id: newId('ExternalAccount'),
    platform_id: scope.platformId,
    environment: scope.environment,
    customer_id: customerId,
    owner,
    // Sandbox accounts are usable at once (a PENDING name check does not hold them back); production
    // accounts wait for an operator (`payouts accounts activate`), the default connector's review step.
    status: scope.environment === 'sandbox' ? 'ACTIVE' : 'PENDING',
    currency: account.currency,
    account_type: account.accountType,
    primary_identifier: account.primaryIdentifier,
    account_info: JSON.stringify(account.accountInfo),
    platform_account_id: account.platformAccountId,
    default_uma_deposit: makeDefault ? 1n : 0n,
    beneficiary_verification_status: verification.status,
    beneficiary_verified_name: verification.verifiedName ?? null,
    crypto_network: account.cryptoNetwork,
    ownership_type: input.ownershipType ?? null,
    created_at: now,
    updated_at: now,
  };
  await trx.insertInto('external_accounts').values(row).execute();
  return toExternalAccount(row);
}

/**
 * `row` (read by id) if it is in scope (404 otherwise) and may take payments (400 naming `field` otherwise).
 * Apart from the read, for a caller that reads the account together with another one.
 */
export function usableExternalAccount(
  row: ExternalAccountsTable | undefined,
  scope: Scope,
  id: string,
  field: string,
): ExternalAccountsTable {
  const account = inScopeOrNotFound(row, scope, id);
  if (!isUsable(account))
    throw invalidInput(
      field,
      `External account ${id} is ${account.status}; only ACTIVE accounts can send or receive payments`,
      'accountStatus',
    );
  return account;
}

/** The account by id, checked as usableExternalAccount checks it. */
async function requireUsableExternalAccount(
  trx: Db | Tx,
  scope: Scope,
  id: string,
  field = 'accountId',
): Promise<ExternalAccountsTable> {
  return usableExternalAccount(await accountById.first(trx, { id }), scope, id, field);
}

async function create(
  deps: ExternalAccountDeps,
  scope: Scope,
  input: ExternalAccountCreateInput,
): Promise<ExternalAccount> {
  const { ctx } = deps;
  const { store } = ctx;
  try {
    return await store.tx((trx) => createExternalAccountInTx(deps, trx, scope, input));
  } catch (err) {
    // The owner lock makes this unreachable in practice; the unique index is the last word.
    if (isUniqueViolation(err)) throw duplicate();
    throw err;
  }
}

async function get(deps: ExternalAccountDeps, scope: Scope, id: string, view: AccountView): Promise<ExternalAccount> {
  const { ctx } = deps;
  const { store } = ctx;
  const { db } = store;
  return toExternalAccount(await load(db, scope, id, view));
}

/** Customer-owned accounts, oldest first. */
async function listCustomerAccounts(
  deps: ExternalAccountDeps,
  scope: Scope,
  filters: { currency?: string | undefined; customerId?: string | undefined },
  page: PageRequest,
): Promise<Page<ExternalAccount>> {
  const { ctx } = deps;
  const { store } = ctx;
  const { db } = store;
  let q = scopedExternalAccounts(db, scope).where('external_accounts.customer_id', 'is not', null);
  if (filters.customerId) q = q.where('external_accounts.owner', '=', filters.customerId);
  if (filters.currency) q = q.where('external_accounts.currency', '=', filters.currency);
  return mapPage(await keysetPage<ExternalAccountsTable>(q, 'external_accounts', page), toExternalAccount);
}

/** The platform's own accounts, oldest first. */
async function listPlatformAccounts(
  deps: ExternalAccountDeps,
  scope: Scope,
  filters: { currency?: string | undefined },
  page: PageRequest,
): Promise<Page<ExternalAccount>> {
  let q = scopedExternalAccounts(deps.ctx.store.db, scope).where('external_accounts.owner', '=', PLATFORM_OWNER);
  if (filters.currency) q = q.where('external_accounts.currency', '=', filters.currency);
  return mapPage(await keysetPage<ExternalAccountsTable>(q, 'external_accounts', page), toExternalAccount);
}

/**
 * Deactivates the account (kept for the record: transactions refer to it) and gives up its
 * default-deposit flag. Deleting an INACTIVE account again answers it unchanged.
 */
async function remove(
  deps: ExternalAccountDeps,
  scope: Scope,
  id: string,
  view: AccountView,
): Promise<ExternalAccount> {
  const { ctx } = deps;
  const { store } = ctx;
  return store.tx(async (trx) => {
    const row = await load(trx, scope, id, view);
    const { from, to } = ACCOUNT_TRANSITIONS.deactivate;
    const now = BigInt(scopeNowMs(ctx, scope));
    const result = await trx
      .updateTable('external_accounts')
      .set({ status: to, default_uma_deposit: 0n, updated_at: now })
      .where('id', '=', row.id)
      .where('status', 'in', from)
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) return toExternalAccount(row);
    return toExternalAccount({ ...row, status: to, default_uma_deposit: 0n, updated_at: now });
  });
}

/**
 * Operator activation (CLI): the default production connector's review step. Ids are unique across
 * tenants, so the operator names the account alone. Only PENDING or UNDER_REVIEW accounts move.
 */
async function activate(deps: ExternalAccountDeps, id: string): Promise<ExternalAccount> {
  const { ctx } = deps;
  const { store } = ctx;
  return store.tx(async (trx) => {
    const row = await trx.selectFrom('external_accounts').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('External account', id);
    const { from, to } = ACCOUNT_TRANSITIONS.activate;
    if (!(from as readonly string[]).includes(row.status)) {
      throw invalidInput(
        'externalAccountId',
        `External account ${id} is ${row.status}; only ${from.join(' or ')} accounts can be activated`,
        'accountStatus',
      );
    }
    // Stamped with the account's own platform clock, like every other change to it (read in this
    // transaction: on SQLite a read outside it would wait for it).
    const config = await trx
      .selectFrom('platform_configs')
      .select('clock_offset_ms')
      .where('platform_id', '=', row.platform_id)
      .where('environment', '=', row.environment)
      .executeTakeFirst();
    const scope = {
      platformId: row.platform_id,
      environment: row.environment,
      clockOffsetMs: Number(config?.clock_offset_ms ?? 0n),
    };
    const now = BigInt(scopeNowMs(ctx, scope));
    await trx
      .updateTable('external_accounts')
      .set({ status: to, updated_at: now })
      .where('id', '=', id)
      .where('status', 'in', from)
      .execute();
    return toExternalAccount({ ...row, status: to, updated_at: now });
  });
}

interface ExternalAccountDeps {
  ctx: Ctx;
  customers: CustomerService;
}

export interface ExternalAccountService {
  /**
   * Creates an account in the caller's transaction, with every rule (quotes' inline account details use it too).
   * Raises INVALID_INPUT, ACCOUNT_ALREADY_EXISTS, USER_NOT_FOUND, CUSTOMER_DELETED.
   */
  createExternalAccountInTx(trx: Tx, scope: Scope, input: ExternalAccountCreateInput): Promise<ExternalAccount>;
  /** The account row if in scope and ACTIVE. Raises REFERENCE_NOT_FOUND, INVALID_INPUT (naming `field`). */
  requireUsableExternalAccount(trx: Db | Tx, scope: Scope, id: string, field?: string): Promise<ExternalAccountsTable>;
  /** Creates an account in a transaction of its own. Raises as createExternalAccountInTx. */
  create(scope: Scope, input: ExternalAccountCreateInput): Promise<ExternalAccount>;
  /** One account the view sees. Raises REFERENCE_NOT_FOUND. */
  get(scope: Scope, id: string, view: AccountView): Promise<ExternalAccount>;
  /** A page of customer-owned accounts, oldest first. */
  listCustomerAccounts(
    scope: Scope,
    filters: { currency?: string | undefined; customerId?: string | undefined },
    page: PageRequest,
  ): Promise<Page<ExternalAccount>>;
  /** A page of the platform's own accounts, oldest first. */
  listPlatformAccounts(
    scope: Scope,
    filters: { currency?: string | undefined },
    page: PageRequest,
  ): Promise<Page<ExternalAccount>>;
  /** Deactivates the account (kept for the record). Raises REFERENCE_NOT_FOUND. */
  remove(scope: Scope, id: string, view: AccountView): Promise<ExternalAccount>;
  /** The operator's activation of a PENDING or UNDER_REVIEW account. Raises REFERENCE_NOT_FOUND, INVALID_INPUT. */
  activate(id: string): Promise<ExternalAccount>;
}

export function makeExternalAccountService(ctx: Ctx, customers: CustomerService): ExternalAccountService {
  const deps: ExternalAccountDeps = { ctx, customers };
  return {
    createExternalAccountInTx: bindDeps(deps, createExternalAccountInTx),
    requireUsableExternalAccount,
    create: bindDeps(deps, create),
    get: bindDeps(deps, get),
    listCustomerAccounts: bindDeps(deps, listCustomerAccounts),
    listPlatformAccounts: bindDeps(deps, listPlatformAccounts),
    remove: bindDeps(deps, remove),
    activate: bindDeps(deps, activate),
  };
}
