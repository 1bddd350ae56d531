import { AppError, notFound } from '../domain/errors.ts';
import { iso } from '../domain/clock.ts';
import { currency as currencyOf } from '../domain/currencies.ts';
import type { Static } from '@sinclair/typebox';
import type { InternalAccount as InternalAccountSchema } from '../wire/internal-accounts.ts';
import { newId } from '../domain/ids.ts';
import { postEntry } from '../ledger/journal.ts';
import { systemAccountId } from '../ledger/accounts.ts';
import type { Db, Tx } from '../store/db.ts';
import type { LedgerAccountsTable } from '../store/schema.ts';
import { keysetPage, mapPage } from '../store/paging.ts';
import type { Page, PageRequest } from '../domain/paging.ts';
import { scopeNowMs, type Ctx, type Scope } from '../context.ts';
import { bindDeps } from './bind.ts';

export type InternalAccount = Static<typeof InternalAccountSchema>;

/** Largest single sandbox funding, as the public API bounds it (1e11 in the smallest unit). */
export const MAX_SANDBOX_FUND = 100_000_000_000;

export function toInternalAccount(row: LedgerAccountsTable): InternalAccount {
  const balance = { amount: Number(row.balance), currency: currencyOf(row.currency) };
  const account: InternalAccount = {
    id: row.id,
    type: row.currency === 'BTC' ? 'INTERNAL_CRYPTO' : 'INTERNAL_FIAT',
    // Accounts open with their currency and never freeze or close here.
    status: 'ACTIVE',
    balance,
    // Money leaves an account when a payment is executed, not when it settles: nothing is held aside,
    // so what the account holds and what it can spend are the same.
    totalBalance: balance,
    fundingPaymentInstructions: [],
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
  if (row.kind === 'CUSTOMER') account.customerId = row.owner;
  return account;
}

/** Opens one internal account per currency for a customer (customerId) or for the platform (null). */
export async function openInternalAccounts(
  trx: Tx,
  scope: Scope,
  customerId: string | null,
  currencies: readonly string[],
  nowMs: number,
): Promise<void> {
  if (currencies.length === 0) return;
  const now = BigInt(nowMs);
  await trx
    .insertInto('ledger_accounts')
    .values(
      currencies.map((currency) => ({
        id: newId('InternalAccount'),
        platform_id: scope.platformId,
        environment: scope.environment,
        kind: customerId ? ('CUSTOMER' as const) : ('PLATFORM' as const),
        owner: customerId ?? 'platform',
        currency,
        balance: 0n,
        created_at: now,
        updated_at: now,
      })),
    )
    .onConflict((oc) => oc.columns(['platform_id', 'environment', 'owner', 'currency', 'kind']).doNothing())
    .execute();
}

/** The ledger accounts the API shows as internal accounts; the others are the ledger's own. */
export const INTERNAL_ACCOUNT_KINDS: ['CUSTOMER', 'PLATFORM'] = ['CUSTOMER', 'PLATFORM'];

export function scopedInternalAccounts(db: Db | Tx, scope: Scope) {
  return db
    .selectFrom('ledger_accounts')
    .where('ledger_accounts.platform_id', '=', scope.platformId)
    .where('ledger_accounts.environment', '=', scope.environment)
    .where('ledger_accounts.kind', 'in', INTERNAL_ACCOUNT_KINDS);
}

/** Customer accounts' filters; the platform's own accounts filter only by currency. */
export interface InternalAccountFilters {
  currency?: string | undefined;
  customerId?: string | undefined;
}

export interface InternalAccountService {
  /** A page of customers' internal accounts matching the filters. */
  listCustomerAccounts(
    scope: Scope,
    filters: InternalAccountFilters,
    page: PageRequest,
  ): Promise<Page<InternalAccount>>;
  /** The platform's own internal accounts, oldest first. */
  listPlatformAccounts(scope: Scope, filters: { currency?: string | undefined }): Promise<InternalAccount[]>;
  /** One internal account. Raises REFERENCE_NOT_FOUND. */
  get(scope: Scope, accountId: string): Promise<InternalAccount>;
  /**
   * Sandbox funding, one journal entry from the currency's settlement account. Raises FORBIDDEN (production),
   * INVALID_AMOUNT, REFERENCE_NOT_FOUND.
   */
  fundSandbox(scope: Scope, accountId: string, amount: number): Promise<InternalAccount>;
}

interface InternalAccountDeps {
  ctx: Ctx;
}

// Reads go through ctx.store.db at each call, so that inside an ambient transaction (an idempotent request,
// a sandbox trigger) they see what that transaction wrote.

async function listCustomerAccounts(
  deps: InternalAccountDeps,
  scope: Scope,
  filters: InternalAccountFilters,
  page: PageRequest,
): Promise<Page<InternalAccount>> {
  let q = scopedInternalAccounts(deps.ctx.store.db, scope).where('ledger_accounts.kind', '=', 'CUSTOMER');
  if (filters.currency) q = q.where('ledger_accounts.currency', '=', filters.currency);
  if (filters.customerId) q = q.where('ledger_accounts.owner', '=', filters.customerId);
  return mapPage(await keysetPage<LedgerAccountsTable>(q, 'ledger_accounts', page), toInternalAccount);
}

async function listPlatformAccounts(
  deps: InternalAccountDeps,
  scope: Scope,
  filters: { currency?: string | undefined },
): Promise<InternalAccount[]> {
  let q = scopedInternalAccounts(deps.ctx.store.db, scope).where('ledger_accounts.kind', '=', 'PLATFORM');
  if (filters.currency) q = q.where('ledger_accounts.currency', '=', filters.currency);
  const rows = await q.selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map(toInternalAccount);
}

async function get(deps: InternalAccountDeps, scope: Scope, accountId: string): Promise<InternalAccount> {
  const row = await scopedInternalAccounts(deps.ctx.store.db, scope)
    .selectAll()
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!row) throw notFound('Internal account', accountId);
  return toInternalAccount(row);
}

/**
 * Sandbox funding: one journal entry that debits the currency's settlement account (money arriving
 * from outside) and credits the internal account. Never a bare balance update.
 */
async function fundSandbox(
  deps: InternalAccountDeps,
  scope: Scope,
  accountId: string,
  amount: number,
): Promise<InternalAccount> {
  const { ctx } = deps;
  if (scope.environment !== 'sandbox') {
    throw new AppError('FORBIDDEN', 'Sandbox endpoints cannot be called with production credentials');
  }
  if (!Number.isSafeInteger(amount) || amount <= 0 || amount > MAX_SANDBOX_FUND) {
    throw new AppError('INVALID_AMOUNT', `amount must be an integer from 1 to ${MAX_SANDBOX_FUND}`, {
      field: 'amount',
      value: amount,
    });
  }
  await ctx.store.tx(async (trx) => {
    const row = await scopedInternalAccounts(trx, scope).selectAll().where('id', '=', accountId).executeTakeFirst();
    if (!row) throw notFound('Internal account', accountId);
    const postings = [
      {
        accountId: systemAccountId(scope, 'SETTLEMENT', row.currency),
        currency: row.currency,
        amount: -BigInt(amount),
      },
      { accountId, currency: row.currency, amount: BigInt(amount) },
    ];
    await postEntry(trx, scope, { kind: 'SANDBOX_FUNDING', reference: accountId, postings }, scopeNowMs(ctx, scope));
  });
  // Read once the entry is written: on PostgreSQL it is written with the transaction's last statement.
  const updated = ctx.store.db.selectFrom('ledger_accounts').selectAll().where('id', '=', accountId);
  return toInternalAccount(await updated.executeTakeFirstOrThrow());
}

export function makeInternalAccountService(ctx: Ctx): InternalAccountService {
  const deps: InternalAccountDeps = { ctx };
  return {
    listCustomerAccounts: bindDeps(deps, listCustomerAccounts),
    listPlatformAccounts: bindDeps(deps, listPlatformAccounts),
    get: bindDeps(deps, get),
    fundSandbox: bindDeps(deps, fundSandbox),
  };
}
