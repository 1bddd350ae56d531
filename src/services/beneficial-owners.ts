import type { Static } from '@sinclair/typebox';
import type { BeneficialOwner as BeneficialOwnerSchema, PersonalInfo } from '../wire/beneficial-owners.ts';
import { invalidInput, notFound } from '../domain/errors.ts';
import { isCalendarDate, iso } from '../domain/clock.ts';
import { isCountryCode } from '../domain/countries.ts';
import { newId } from '../domain/ids.ts';
import { sandboxOwnerKyc, type ReviewStatus } from '../domain/kyc.ts';
import type { Db, Tx } from '../store/db.ts';
import type { BeneficialOwnersTable, CustomersTable } from '../store/schema.ts';
import { keysetPage, mapPage } from '../store/paging.ts';
import type { Page, PageRequest } from '../domain/paging.ts';
import { scopeNowMs, type Ctx, type Scope } from '../context.ts';
import { bindDeps } from './bind.ts';

export type BeneficialOwner = Static<typeof BeneficialOwnerSchema>;
type PersonalInfoInput = Static<typeof PersonalInfo>;

export interface BeneficialOwnerInput {
  customerId: string;
  roles: BeneficialOwner['roles'];
  ownershipPercentage: number;
  personalInfo: PersonalInfoInput;
}

export interface BeneficialOwnerUpdateInput {
  roles?: BeneficialOwner['roles'] | undefined;
  ownershipPercentage?: number | undefined;
  personalInfo?: Partial<PersonalInfoInput> | undefined;
}

export function toBeneficialOwner(row: BeneficialOwnersTable): BeneficialOwner {
  return {
    id: row.id,
    customerId: row.customer_id,
    roles: JSON.parse(row.roles) as BeneficialOwner['roles'],
    ownershipPercentage: Number(row.ownership_percentage),
    personalInfo: JSON.parse(row.personal_info) as PersonalInfoInput,
    kycStatus: row.kyc_status,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function scopedBeneficialOwners(db: Db | Tx, scope: Scope) {
  return db
    .selectFrom('beneficial_owners')
    .where('beneficial_owners.platform_id', '=', scope.platformId)
    .where('beneficial_owners.environment', '=', scope.environment);
}

/** The owners of each given business, oldest first, for the `beneficialOwners` array of customer answers. */
export async function ownersByCustomer(
  db: Db | Tx,
  scope: Scope,
  customerIds: readonly string[],
): Promise<Map<string, BeneficialOwner[]>> {
  const byCustomer = new Map<string, BeneficialOwner[]>();
  if (customerIds.length === 0) return byCustomer;
  const rows = await scopedBeneficialOwners(db, scope)
    .selectAll()
    .where('customer_id', 'in', customerIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  for (const row of rows) {
    const owners = byCustomer.get(row.customer_id) ?? [];
    owners.push(toBeneficialOwner(row));
    byCustomer.set(row.customer_id, owners);
  }
  return byCustomer;
}

/** Rules the JSON schema cannot express: real calendar dates and assigned country codes. */
function validatePersonalInfo(info: Partial<PersonalInfoInput>): void {
  if (info.birthDate !== undefined && !isCalendarDate(info.birthDate)) {
    throw invalidInput('personalInfo.birthDate', 'birthDate must be a real calendar date written YYYY-MM-DD', 'date');
  }
  const countries: Array<[string, string | undefined]> = [
    ['personalInfo.nationality', info.nationality],
    ['personalInfo.countryOfIssuance', info.countryOfIssuance],
    ['personalInfo.address.country', info.address?.country],
  ];
  for (const [field, value] of countries) {
    if (value !== undefined && !isCountryCode(value))
      throw invalidInput(field, `${field} must be an ISO 3166-1 alpha-2 country code`, 'country');
  }
}

/** Sandbox KYC is simulated by the last name's suffix; production owners wait for a review. */
function kycStatusFor(scope: Scope, info: PersonalInfoInput): ReviewStatus {
  return scope.environment === 'sandbox' ? sandboxOwnerKyc(info.lastName) : 'PENDING';
}

/**
 * What owners need of customers. The customer service provides it; naming the need here keeps the two
 * modules from importing each other (customers list their owners through this module).
 */
export interface ActiveCustomers {
  requireActive(trx: Db | Tx, scope: Scope, customerId: string): Promise<CustomersTable>;
}

export interface BeneficialOwnerFilters {
  customerId?: string | undefined;
  role?: string | undefined;
}

export interface BeneficialOwnerService {
  /** The owner row if it is in scope (documents name owners as holders). Raises REFERENCE_NOT_FOUND. */
  load(trx: Db | Tx, scope: Scope, id: string): Promise<BeneficialOwnersTable>;
  /** A new owner of a business customer. Raises INVALID_INPUT, USER_NOT_FOUND, CUSTOMER_DELETED. */
  create(scope: Scope, input: BeneficialOwnerInput): Promise<BeneficialOwner>;
  /** One owner. Raises REFERENCE_NOT_FOUND. */
  get(scope: Scope, id: string): Promise<BeneficialOwner>;
  /** A page of owners, by business or by role. */
  list(scope: Scope, filters: BeneficialOwnerFilters, page: PageRequest): Promise<Page<BeneficialOwner>>;
  /**
   * Changes the given fields; changed personal details are checked again. Raises REFERENCE_NOT_FOUND, INVALID_INPUT,
   * USER_NOT_FOUND, CUSTOMER_DELETED.
   */
  update(scope: Scope, id: string, input: BeneficialOwnerUpdateInput): Promise<BeneficialOwner>;
}

interface BeneficialOwnerDeps {
  ctx: Ctx;
  customers: ActiveCustomers;
}

async function load(trx: Db | Tx, scope: Scope, id: string): Promise<BeneficialOwnersTable> {
  const row = await scopedBeneficialOwners(trx, scope)
    .selectAll()
    .where('beneficial_owners.id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound('Beneficial owner', id);
  return row;
}

async function requireBusiness(
  deps: BeneficialOwnerDeps,
  trx: Tx,
  scope: Scope,
  customerId: string,
): Promise<CustomersTable> {
  const customer = await deps.customers.requireActive(trx, scope, customerId);
  if (customer.customer_type !== 'BUSINESS') {
    throw invalidInput(
      'customerId',
      `Customer ${customerId} is an INDIVIDUAL; beneficial owners belong to BUSINESS customers`,
      'customerType',
    );
  }
  return customer;
}

async function create(deps: BeneficialOwnerDeps, scope: Scope, input: BeneficialOwnerInput): Promise<BeneficialOwner> {
  const { ctx } = deps;
  validatePersonalInfo(input.personalInfo);
  return ctx.store.tx(async (trx) => {
    await requireBusiness(deps, trx, scope, input.customerId);
    const now = BigInt(scopeNowMs(ctx, scope));
    const row: BeneficialOwnersTable = {
      id: newId('BeneficialOwner'),
      platform_id: scope.platformId,
      environment: scope.environment,
      customer_id: input.customerId,
      roles: JSON.stringify(input.roles),
      ownership_percentage: BigInt(input.ownershipPercentage),
      personal_info: JSON.stringify(input.personalInfo),
      kyc_status: kycStatusFor(scope, input.personalInfo),
      created_at: now,
      updated_at: now,
    };
    await trx.insertInto('beneficial_owners').values(row).execute();
    return toBeneficialOwner(row);
  });
}

async function get(deps: BeneficialOwnerDeps, scope: Scope, id: string): Promise<BeneficialOwner> {
  return toBeneficialOwner(await load(deps.ctx.store.db, scope, id));
}

async function list(
  deps: BeneficialOwnerDeps,
  scope: Scope,
  filters: BeneficialOwnerFilters,
  page: PageRequest,
): Promise<Page<BeneficialOwner>> {
  let q = scopedBeneficialOwners(deps.ctx.store.db, scope);
  if (filters.customerId !== undefined) q = q.where('beneficial_owners.customer_id', '=', filters.customerId);
  // Roles are a small JSON array of enum names; the quoted name cannot match inside another role.
  if (filters.role !== undefined) q = q.where('beneficial_owners.roles', 'like', `%"${filters.role}"%`);
  return mapPage(await keysetPage<BeneficialOwnersTable>(q, 'beneficial_owners', page), toBeneficialOwner);
}

/**
 * Changes the given fields (personalInfo merges field by field). Changed personal details are checked
 * again: the sandbox re-runs its simulated KYC on the new last name, production goes back to PENDING.
 */
async function update(
  deps: BeneficialOwnerDeps,
  scope: Scope,
  id: string,
  input: BeneficialOwnerUpdateInput,
): Promise<BeneficialOwner> {
  const { ctx } = deps;
  if (input.personalInfo) validatePersonalInfo(input.personalInfo);
  return ctx.store.tx(async (trx) => {
    const row = await load(trx, scope, id);
    await requireBusiness(deps, trx, scope, row.customer_id);
    const personalInfo = { ...(JSON.parse(row.personal_info) as PersonalInfoInput), ...input.personalInfo };
    const updated: BeneficialOwnersTable = {
      ...row,
      roles: input.roles ? JSON.stringify(input.roles) : row.roles,
      ownership_percentage:
        input.ownershipPercentage !== undefined ? BigInt(input.ownershipPercentage) : row.ownership_percentage,
      personal_info: JSON.stringify(personalInfo),
      kyc_status: input.personalInfo ? kycStatusFor(scope, personalInfo) : row.kyc_status,
      updated_at: BigInt(scopeNowMs(ctx, scope)),
    };
    await trx
      .updateTable('beneficial_owners')
      .set({
        roles: updated.roles,
        ownership_percentage: updated.ownership_percentage,
        personal_info: updated.personal_info,
        kyc_status: updated.kyc_status,
        updated_at: updated.updated_at,
      })
      .where('id', '=', row.id)
      .execute();
    return toBeneficialOwner(updated);
  });
}

export function makeBeneficialOwnerService(ctx: Ctx, customers: ActiveCustomers): BeneficialOwnerService {
  const deps: BeneficialOwnerDeps = { ctx, customers };
  return {
    load,
    create: bindDeps(deps, create),
    get: bindDeps(deps, get),
    list: bindDeps(deps, list),
    update: bindDeps(deps, update),
  };
}
