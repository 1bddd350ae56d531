import { present } from '../domain/assert.ts';
import { bindDeps } from './bind.ts';
import { randomBytes } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { Customer as CustomerSchema } from '../wire/customers.ts';
import { KYC_PROFILE_FIELDS } from '../domain/kyc.ts';
import { AppError, invalidInput, notFound } from '../domain/errors.ts';
import { isCalendarDate, iso } from '../domain/clock.ts';
import { isCountryCode } from '../domain/countries.ts';
import { newId } from '../domain/ids.ts';
import { isUmaAddress } from '../domain/uma.ts';
import { isUniqueViolation, type Db, type Tx } from '../store/db.ts';
import type { CustomersTable } from '../store/schema.ts';
import { keysetPage } from '../store/paging.ts';
import type { Page, PageRequest } from '../domain/paging.ts';
import { inScope, scopeNowMs, type Ctx, type Scope } from '../context.ts';
import { ownersByCustomer, type BeneficialOwner } from './beneficial-owners.ts';
import { openInternalAccounts } from './internal-accounts.ts';
import { getPlatformConfig } from '../platforms.ts';

export type CustomerType = 'INDIVIDUAL' | 'BUSINESS';

export interface Address {
  line1: string;
  line2?: string;
  city?: string;
  state?: string;
  postalCode: string;
  country: string;
}

type KycProfile = Partial<Pick<Static<typeof CustomerSchema>, (typeof KYC_PROFILE_FIELDS)[number]>>;

/** The type-specific part of a customer and its KYC profile, stored as one JSON document. */
export interface CustomerProfile extends KycProfile {
  fullName?: string;
  birthDate?: string;
  nationality?: string;
  address?: Address;
  businessInfo?: Record<string, unknown> & { legalName?: string };
}

export interface CustomerInput extends CustomerProfile {
  customerType: CustomerType;
  platformCustomerId?: string;
  umaAddress?: string;
}

export type Customer = Static<typeof CustomerSchema>;

/** `owners` fills a business's beneficialOwners (withOwners loads them); individuals have none. */
export function toCustomer(row: CustomersTable, owners: readonly BeneficialOwner[] = []): Customer {
  const profile = JSON.parse(row.profile) as CustomerProfile;
  const common = {
    id: row.id,
    platformCustomerId: row.platform_customer_id,
    customerType: row.customer_type,
    umaAddress: row.uma_address,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    isDeleted: row.is_deleted === 1n,
  };
  const status = row.verification_status as NonNullable<Customer['kycStatus']>;
  if (row.customer_type === 'INDIVIDUAL') return { ...common, kycStatus: status, ...profile };
  return { ...common, kybStatus: status, ...profile, beneficialOwners: [...owners] };
}

/** Field rules the JSON schema cannot express: real dates, real country codes, well-formed UMA addresses. */
export function validateProfile(input: CustomerInput): void {
  if (input.birthDate !== undefined && !isCalendarDate(input.birthDate)) {
    throw invalidInput('birthDate', 'birthDate must be a real calendar date written YYYY-MM-DD', 'date');
  }
  if (input.nationality !== undefined && !isCountryCode(input.nationality)) {
    throw invalidInput('nationality', 'nationality must be an ISO 3166-1 alpha-2 country code', 'country');
  }
  if (input.address && !isCountryCode(input.address.country)) {
    throw invalidInput('address.country', 'address.country must be an ISO 3166-1 alpha-2 country code', 'country');
  }
  if (input.umaAddress !== undefined && !isUmaAddress(input.umaAddress)) {
    throw new AppError('INVALID_UMA_ADDRESS', 'umaAddress must look like $name@domain', { field: 'umaAddress' });
  }
  const business = input.businessInfo;
  if (business) {
    if (input.customerType !== 'BUSINESS')
      throw invalidInput('businessInfo', 'businessInfo is only for BUSINESS customers');
    if (typeof business.legalName !== 'string' || business.legalName.length === 0) {
      throw invalidInput(
        'businessInfo.legalName',
        'businessInfo.legalName is required when businessInfo is given',
        'required',
      );
    }
    if (typeof business.incorporatedOn === 'string' && !isCalendarDate(business.incorporatedOn)) {
      throw invalidInput(
        'businessInfo.incorporatedOn',
        'incorporatedOn must be a real calendar date written YYYY-MM-DD',
        'date',
      );
    }
    if (typeof business.country === 'string' && !isCountryCode(business.country)) {
      throw invalidInput(
        'businessInfo.country',
        'businessInfo.country must be an ISO 3166-1 alpha-2 country code',
        'country',
      );
    }
  }
  if (
    input.customerType === 'BUSINESS' &&
    (input.fullName !== undefined || input.birthDate !== undefined || input.nationality !== undefined)
  ) {
    throw invalidInput('customerType', 'fullName, birthDate and nationality are only for INDIVIDUAL customers');
  }
}

/** What a request gives of the stored profile: the type's own fields and the KYC profile, nothing else. */
function profileOf(input: CustomerProfile): CustomerProfile {
  const keys = ['fullName', 'birthDate', 'nationality', 'address', 'businessInfo', ...KYC_PROFILE_FIELDS] as const;
  return Object.fromEntries(keys.map((k) => [k, input[k]]).filter(([, v]) => v !== undefined));
}

/** Customer answers for these rows, each business with its beneficial owners (one query for the lot). */
export async function withOwners(db: Db | Tx, scope: Scope, rows: readonly CustomersTable[]): Promise<Customer[]> {
  const owners = await ownersByCustomer(
    db,
    scope,
    rows.filter((r) => r.customer_type === 'BUSINESS').map((r) => r.id),
  );
  return rows.map((row) => toCustomer(row, owners.get(row.id)));
}

export function scopedCustomers(db: Db | Tx, scope: Scope) {
  return db
    .selectFrom('customers')
    .where('customers.platform_id', '=', scope.platformId)
    .where('customers.environment', '=', scope.environment);
}

export interface CustomerFilters {
  platformCustomerId?: string | undefined;
  customerType?: CustomerType | undefined;
  umaAddress?: string | undefined;
  createdAfter?: number | undefined;
  createdBefore?: number | undefined;
  updatedAfter?: number | undefined;
  updatedBefore?: number | undefined;
  isIncludingDeleted?: boolean | undefined;
}

async function load(trx: Db | Tx, scope: Scope, customerId: string): Promise<CustomersTable> {
  const row = await trx.selectFrom('customers').selectAll().where('id', '=', customerId).executeTakeFirst();
  if (!row || !inScope(row, scope)) throw notFound('Customer', customerId, 'USER_NOT_FOUND');
  return row;
}

function umaTaken(umaAddress: string): AppError {
  return new AppError('UMA_ADDRESS_EXISTS', `UMA address ${umaAddress} is already taken`, { field: 'umaAddress' });
}

/** Creates the customer and its internal accounts (one per supported currency) in one transaction. */
async function create(
  deps: CustomerDeps,
  scope: Scope,
  input: CustomerInput & { platformCustomerId: string },
): Promise<Customer> {
  const { ctx } = deps;
  validateProfile(input);
  // Sandbox KYC is simulated and approves at once; production customers start unverified.
  const status = scope.environment === 'sandbox' ? 'APPROVED' : 'UNVERIFIED';
  let umaAddress = input.umaAddress ?? '';
  try {
    return await ctx.store.tx(async (trx) => {
      // Read in the transaction, held until commit: a currency added meanwhile is not missed.
      const config = await getPlatformConfig(ctx, scope, trx, true);
      umaAddress =
        input.umaAddress ??
        `$${
          input.platformCustomerId
            .toLowerCase()
            .replace(/[^a-z0-9._-]/g, '')
            .slice(0, 40) || 'customer'
        }.${randomBytes(3).toString('hex')}@${config.umaDomain}`;
      const now = scopeNowMs(ctx, scope);
      const row: CustomersTable = {
        id: newId('Customer'),
        platform_id: scope.platformId,
        environment: scope.environment,
        platform_customer_id: input.platformCustomerId,
        customer_type: input.customerType,
        uma_address: umaAddress,
        verification_status: status,
        profile: JSON.stringify(profileOf(input)),
        is_deleted: 0n,
        created_at: BigInt(now),
        updated_at: BigInt(now),
      };
      await trx.insertInto('customers').values(row).execute();
      await openInternalAccounts(trx, scope, row.id, config.supportedCurrencies, now);
      return toCustomer(row);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw umaTaken(umaAddress);
    throw err;
  }
}

async function get(deps: CustomerDeps, scope: Scope, customerId: string): Promise<Customer> {
  const { ctx } = deps;
  const { db } = ctx.store;
  const [customer] = await withOwners(db, scope, [await load(db, scope, customerId)]);
  return present(customer, 'one customer in, one out');
}

async function list(deps: CustomerDeps, scope: Scope, f: CustomerFilters, page: PageRequest): Promise<Page<Customer>> {
  const { ctx } = deps;
  const { db } = ctx.store;
  let q = scopedCustomers(db, scope);
  if (!f.isIncludingDeleted) q = q.where('customers.is_deleted', '=', 0n);
  if (f.platformCustomerId !== undefined) q = q.where('customers.platform_customer_id', '=', f.platformCustomerId);
  if (f.customerType !== undefined) q = q.where('customers.customer_type', '=', f.customerType);
  if (f.umaAddress !== undefined) q = q.where('customers.uma_address', '=', f.umaAddress);
  if (f.createdAfter !== undefined) q = q.where('customers.created_at', '>=', BigInt(f.createdAfter));
  if (f.createdBefore !== undefined) q = q.where('customers.created_at', '<=', BigInt(f.createdBefore));
  if (f.updatedAfter !== undefined) q = q.where('customers.updated_at', '>=', BigInt(f.updatedAfter));
  if (f.updatedBefore !== undefined) q = q.where('customers.updated_at', '<=', BigInt(f.updatedBefore));
  const rows = await keysetPage<CustomersTable>(q, 'customers', page);
  return { ...rows, data: await withOwners(db, scope, rows.data) };
}

async function update(deps: CustomerDeps, scope: Scope, customerId: string, input: CustomerInput): Promise<Customer> {
  const { ctx } = deps;
  validateProfile(input);
  try {
    return await ctx.store.tx(async (trx) => {
      const row = await load(trx, scope, customerId);
      if (row.is_deleted === 1n) throw new AppError('CUSTOMER_DELETED', `Customer ${customerId} has been deleted`);
      if (row.customer_type !== input.customerType) {
        throw invalidInput('customerType', `customerType cannot change (the customer is ${row.customer_type})`);
      }
      const profile = { ...(JSON.parse(row.profile) as CustomerProfile), ...profileOf(input) };
      const updated: CustomersTable = {
        ...row,
        platform_customer_id: input.platformCustomerId ?? row.platform_customer_id,
        uma_address: input.umaAddress ?? row.uma_address,
        profile: JSON.stringify(profile),
        updated_at: BigInt(scopeNowMs(ctx, scope)),
      };
      await trx
        .updateTable('customers')
        .set({
          platform_customer_id: updated.platform_customer_id,
          uma_address: updated.uma_address,
          profile: updated.profile,
          updated_at: updated.updated_at,
        })
        .where('id', '=', row.id)
        .execute();
      return present((await withOwners(trx, scope, [updated]))[0], 'one customer in, one out');
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw umaTaken(input.umaAddress ?? '');
    throw err;
  }
}

/** Soft delete: the record stays (transactions refer to it) but leaves lists; deleting twice is 410. */
async function remove(deps: CustomerDeps, scope: Scope, customerId: string): Promise<Customer> {
  const { ctx } = deps;
  return ctx.store.tx(async (trx) => {
    const row = await load(trx, scope, customerId);
    const now = BigInt(scopeNowMs(ctx, scope));
    const result = await trx
      .updateTable('customers')
      .set({ is_deleted: 1n, updated_at: now })
      .where('id', '=', row.id)
      .where('is_deleted', '=', 0n)
      .executeTakeFirst();
    if (result.numUpdatedRows !== 1n)
      throw new AppError('CUSTOMER_DELETED', `Customer ${customerId} has already been deleted`);
    const [removed] = await withOwners(trx, scope, [{ ...row, is_deleted: 1n, updated_at: now }]);
    return present(removed, 'one customer in, one out');
  });
}

/** The customer if it exists in this scope and is not deleted; used by every resource that names one. */
async function requireActive(trx: Db | Tx, scope: Scope, customerId: string): Promise<CustomersTable> {
  const row = await load(trx, scope, customerId);
  if (row.is_deleted === 1n) throw new AppError('CUSTOMER_DELETED', `Customer ${customerId} has been deleted`);
  return row;
}

interface CustomerDeps {
  ctx: Ctx;
}

export interface CustomerService {
  /** Creates the customer and its internal accounts. Raises INVALID_INPUT, INVALID_UMA_ADDRESS, UMA_ADDRESS_EXISTS. */
  create(scope: Scope, input: CustomerInput & { platformCustomerId: string }): Promise<Customer>;
  /** One customer, a business with its beneficial owners. Raises USER_NOT_FOUND. */
  get(scope: Scope, customerId: string): Promise<Customer>;
  /** A page of the customers matching the filters (deleted ones only when asked for). */
  list(scope: Scope, filters: CustomerFilters, page: PageRequest): Promise<Page<Customer>>;
  /**
   * Merges the given profile fields. Raises USER_NOT_FOUND, CUSTOMER_DELETED, INVALID_INPUT, INVALID_UMA_ADDRESS,
   * UMA_ADDRESS_EXISTS.
   */
  update(scope: Scope, customerId: string, input: CustomerInput): Promise<Customer>;
  /** Soft delete. Raises USER_NOT_FOUND, CUSTOMER_DELETED (already deleted). */
  remove(scope: Scope, customerId: string): Promise<Customer>;
  /** The row of a customer another resource names (caller's transaction). Raises USER_NOT_FOUND, CUSTOMER_DELETED. */
  requireActive(trx: Db | Tx, scope: Scope, customerId: string): Promise<CustomersTable>;
}

export function makeCustomerService(ctx: Ctx): CustomerService {
  const deps: CustomerDeps = { ctx };
  return {
    create: bindDeps(deps, create),
    get: bindDeps(deps, get),
    list: bindDeps(deps, list),
    update: bindDeps(deps, update),
    remove: bindDeps(deps, remove),
    requireActive: requireActive,
  };
}
