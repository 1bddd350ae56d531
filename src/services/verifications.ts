import type { Static } from '@sinclair/typebox';
import type { Verification as VerificationSchema } from '../wire/verifications.ts';
import { notFound } from '../domain/errors.ts';
import { iso } from '../domain/clock.ts';
import { newId } from '../domain/ids.ts';
import {
  decideVerification,
  findVerificationErrors,
  type VerificationError,
  type VerificationStatus,
} from '../domain/verification-rules.ts';
import type { Db, Tx } from '../store/db.ts';
import type { CustomersTable, VerificationsTable } from '../store/schema.ts';
import { keysetPage, mapPage } from '../store/paging.ts';
import type { Page, PageRequest } from '../domain/paging.ts';
import { recordEvent } from '../webhooks/events.ts';
import { scopeNowMs, type Ctx, type Scope } from '../context.ts';
import { bindDeps } from './bind.ts';
import { scopedBeneficialOwners } from './beneficial-owners.ts';
import { withOwners, type CustomerService } from './customers.ts';
import { scopedDocuments } from './documents.ts';

export type Verification = Static<typeof VerificationSchema>;

export function toVerification(row: VerificationsTable): Verification {
  return {
    id: row.id,
    customerId: row.customer_id,
    verificationStatus: row.status as VerificationStatus,
    errors: JSON.parse(row.errors) as VerificationError[],
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

function scopedVerifications(db: Db | Tx, scope: Scope) {
  return db
    .selectFrom('verifications')
    .where('verifications.platform_id', '=', scope.platformId)
    .where('verifications.environment', '=', scope.environment);
}

export interface VerificationFilters {
  customerId?: string | undefined;
  verificationStatus?: string | undefined;
}

export interface VerificationService {
  /**
   * Submits (or re-submits: each call is a new attempt) a customer for verification, in one transaction.
   * Raises USER_NOT_FOUND, CUSTOMER_DELETED.
   */
  submit(scope: Scope, customerId: string): Promise<Verification>;
  /** One verification. Raises REFERENCE_NOT_FOUND. */
  get(scope: Scope, id: string): Promise<Verification>;
  /** A page of verifications, by customer or by status. */
  list(scope: Scope, filters: VerificationFilters, page: PageRequest): Promise<Page<Verification>>;
}

interface VerificationDeps {
  ctx: Ctx;
  customers: Pick<CustomerService, 'requireActive'>;
}

/** What the rules judge: the customer's profile and documents, and each beneficial owner's KYC and documents. */
async function applicantOf(trx: Tx, scope: Scope, customer: CustomersTable) {
  const owners = await scopedBeneficialOwners(trx, scope)
    .select(['id', 'kyc_status'])
    .where('customer_id', '=', customer.id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const documents = await scopedDocuments(trx, scope)
    .select(['holder_id', 'document_type'])
    .where('customer_id', '=', customer.id)
    .execute();
  const typesHeldBy = (holderId: string) =>
    documents.filter((d) => d.holder_id === holderId).map((d) => d.document_type);
  const applicant = {
    id: customer.id,
    customerType: customer.customer_type,
    profile: JSON.parse(customer.profile) as Record<string, unknown>,
    documentTypes: typesHeldBy(customer.id),
  };
  const ownerFacts = owners.map((o) => ({ id: o.id, kycStatus: o.kyc_status, documentTypes: typesHeldBy(o.id) }));
  return { applicant, owners: ownerFacts };
}

/** Moves the customer's kycStatus/kybStatus, with its CUSTOMER.KYC_* / KYB_* event. */
async function moveCustomerStatus(
  trx: Tx,
  scope: Scope,
  customer: CustomersTable,
  status: string,
  now: number,
): Promise<void> {
  const updated = { ...customer, verification_status: status, updated_at: BigInt(now) };
  await trx
    .updateTable('customers')
    .set({ verification_status: updated.verification_status, updated_at: updated.updated_at })
    .where('id', '=', customer.id)
    .execute();
  const kind = customer.customer_type === 'BUSINESS' ? 'KYB' : 'KYC';
  const [data] = await withOwners(trx, scope, [updated]);
  await recordEvent(trx, scope, { type: `CUSTOMER.${kind}_${status}`, objectId: customer.id, data }, now);
}

/**
 * Works out what is missing, decides the outcome, records the verification and its VERIFICATION.* event,
 * marks the documents it sent to review, and moves the customer's status when it changed.
 */
async function submit(deps: VerificationDeps, scope: Scope, customerId: string): Promise<Verification> {
  const { ctx, customers } = deps;
  const { store } = ctx;
  return store.tx(async (trx) => {
    const customer = await customers.requireActive(trx, scope, customerId);
    // Two submissions of one customer at once would both read the old status; take them in turn.
    if (store.engine === 'postgres')
      await trx.selectFrom('customers').select('id').where('id', '=', customer.id).forUpdate().execute();
    const { applicant, owners } = await applicantOf(trx, scope, customer);
    const errors = findVerificationErrors(applicant, owners);
    const decision = decideVerification(scope.environment, applicant, errors);

    const now = scopeNowMs(ctx, scope);
    const row: VerificationsTable = {
      id: newId('Verification'),
      platform_id: scope.platformId,
      environment: scope.environment,
      customer_id: customer.id,
      status: decision.verificationStatus,
      errors: JSON.stringify(errors),
      created_at: BigInt(now),
      updated_at: BigInt(now),
    };
    await trx.insertInto('verifications').values(row).execute();
    const verification = toVerification(row);
    const type = `VERIFICATION.${verification.verificationStatus}`;
    await recordEvent(trx, scope, { type, objectId: row.id, data: verification }, now);

    if (decision.verificationStatus !== 'RESOLVE_ERRORS') {
      // What went to review is evidence from now on (DELETE and PUT answer 409).
      await trx
        .updateTable('documents')
        .set({ submitted_verification_id: row.id })
        .where('customer_id', '=', customer.id)
        .where('submitted_verification_id', 'is', null)
        .execute();
    }
    if (decision.customerStatus && decision.customerStatus !== customer.verification_status)
      await moveCustomerStatus(trx, scope, customer, decision.customerStatus, now);
    return verification;
  });
}

async function get(deps: VerificationDeps, scope: Scope, id: string): Promise<Verification> {
  const row = await scopedVerifications(deps.ctx.store.db, scope)
    .selectAll()
    .where('verifications.id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound('Verification', id);
  return toVerification(row);
}

async function list(
  deps: VerificationDeps,
  scope: Scope,
  filters: VerificationFilters,
  page: PageRequest,
): Promise<Page<Verification>> {
  let q = scopedVerifications(deps.ctx.store.db, scope);
  if (filters.customerId !== undefined) q = q.where('verifications.customer_id', '=', filters.customerId);
  if (filters.verificationStatus !== undefined) q = q.where('verifications.status', '=', filters.verificationStatus);
  return mapPage(await keysetPage<VerificationsTable>(q, 'verifications', page), toVerification);
}

export function makeVerificationService(
  ctx: Ctx,
  customers: Pick<CustomerService, 'requireActive'>,
): VerificationService {
  const deps: VerificationDeps = { ctx, customers };
  return { submit: bindDeps(deps, submit), get: bindDeps(deps, get), list: bindDeps(deps, list) };
}
