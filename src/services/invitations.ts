import { bindDeps } from './bind.ts';
import { randomBytes } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { Invitation as InvitationSchema } from '../wire/invitations.ts';
import { AppError, invalidInput, notFound } from '../domain/errors.ts';
import { iso } from '../domain/clock.ts';
import { currency as currencyOf } from '../domain/currencies.ts';
import { isUmaAddress } from '../domain/uma.ts';
import { callOffJob, enqueueJob, ownedJobId } from '../jobs/queue.ts';
import type { JobPayloads } from '../jobs/kinds.ts';
import type { Db, Tx } from '../store/db.ts';
import type { InvitationsTable } from '../store/schema.ts';
import type { Environment } from '../domain/environments.ts';
import { recordEvent } from '../webhooks/events.ts';
import { scopeNowMs, type Ctx, type Scope, wallNowMs } from '../context.ts';
import { scopedCustomers } from './customers.ts';
import { getPlatformConfig, loadScope, primaryCurrency } from '../platforms.ts';

export type Invitation = Static<typeof InvitationSchema>;

export interface InvitationInput {
  inviterUma: string;
  firstName?: string | undefined;
  amountToSend?: number | undefined;
  currency?: string | undefined;
  expiresAt?: string | undefined;
}

/** 32 letters and digits without look-alikes (no 0/o, 1/l): codes are read aloud and typed from links. */
const CODE_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';
const CODE_LENGTH = 16;

/** 16 characters × 5 bits = 80 random bits from the OS CSPRNG: a code cannot be guessed or enumerated. */
function newInvitationCode(): string {
  return [...randomBytes(CODE_LENGTH)].map((b) => CODE_ALPHABET[b & 31]).join('');
}

type InvitationStatus = InvitationsTable['status'];

/** A PENDING invitation past its expiresAt is EXPIRED, even before the expiry job has run. */
function statusAt(row: InvitationsTable, now: number): InvitationStatus {
  return row.status === 'PENDING' && row.expires_at !== null && row.expires_at <= BigInt(now) ? 'EXPIRED' : row.status;
}

/** Claim and cancel both need a PENDING invitation; anything else is a 400 that says why. */
function requirePending(row: InvitationsTable, now: number): void {
  const refusals: Record<Exclude<InvitationStatus, 'PENDING'>, AppError> = {
    CLAIMED: new AppError('INVITATION_ALREADY_CLAIMED', `Invitation ${row.code} has already been claimed`),
    CANCELLED: new AppError('INVITATION_CANCELLED', `Invitation ${row.code} was cancelled`),
    EXPIRED: new AppError('EXPIRED', `Invitation ${row.code} has expired`, { reason: 'INVITATION_EXPIRED' }),
  };
  const status = statusAt(row, now);
  if (status !== 'PENDING') throw refusals[status];
}

/** The state-guarded update found the invitation no longer PENDING: say what it became. */
function movedMeanwhile(row: InvitationsTable, now: number): AppError {
  try {
    requirePending(row, now);
  } catch (err) {
    return err as AppError;
  }
  return new AppError('CONFLICT', `Invitation ${row.code} changed during this request; try again`);
}

function toInvitation(deps: InvitationDeps, row: InvitationsTable, now: number): Invitation {
  const { ctx } = deps;
  const invitation: Invitation = {
    code: row.code,
    createdAt: iso(row.created_at),
    // The link a claim page is served at (PUBLIC_URL); the API itself reads the invitation at /invitations/{code}.
    url: `${ctx.config.publicUrl}/invitations/${row.code}`,
    inviterUma: row.inviter_uma,
    status: statusAt(row, now),
  };
  if (row.claimed_at !== null) invitation.claimedAt = iso(row.claimed_at);
  if (row.expires_at !== null) invitation.expiresAt = iso(row.expires_at);
  if (row.invitee_uma !== null) invitation.inviteeUma = row.invitee_uma;
  if (row.first_name !== null) invitation.firstName = row.first_name;
  if (row.amount_to_send !== null && row.amount_currency !== null) {
    invitation.amountToSend = { amount: Number(row.amount_to_send), currency: currencyOf(row.amount_currency) };
  }
  return invitation;
}

/** Any platform of the same environment may read or claim by code: the code is the secret a link shares. */
async function load(
  deps: InvitationDeps,
  trx: Db | Tx,
  environment: Environment,
  code: string,
  lock = false,
): Promise<InvitationsTable> {
  const { ctx } = deps;
  const { store } = ctx;
  let q = trx.selectFrom('invitations').selectAll().where('code', '=', code).where('environment', '=', environment);
  if (lock && store.engine === 'postgres') q = q.forUpdate();
  const row = await q.executeTakeFirst();
  if (!row) throw notFound('Invitation', code, 'INVITATION_NOT_FOUND');
  return row;
}

/** The inviter's scope, with its sandbox clock: expiry and claim times follow the inviter's time line. */
async function inviterScopeOf(deps: InvitationDeps, row: InvitationsTable): Promise<Scope> {
  const { ctx } = deps;
  return loadScope(ctx, row.platform_id, row.environment);
}

/** Moves a PENDING invitation to `to`, guarded by its state; false when another request moved it first. */
async function transition(
  trx: Tx,
  code: string,
  to: InvitationStatus,
  set: Partial<InvitationsTable>,
): Promise<boolean> {
  const result = await trx
    .updateTable('invitations')
    .set({ ...set, status: to })
    .where('code', '=', code)
    .where('status', '=', 'PENDING')
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

async function create(deps: InvitationDeps, scope: Scope, input: InvitationInput): Promise<Invitation> {
  const { ctx } = deps;
  const { store } = ctx;
  const { db } = store;
  if (!isUmaAddress(input.inviterUma))
    throw new AppError('INVALID_UMA_ADDRESS', 'inviterUma must look like $name@domain', { field: 'inviterUma' });
  const inviter = await scopedCustomers(db, scope)
    .select('id')
    .where('uma_address', '=', input.inviterUma)
    .where('is_deleted', '=', 0n)
    .executeTakeFirst();
  if (!inviter)
    throw invalidInput('inviterUma', `${input.inviterUma} is not the UMA address of one of your customers`, 'customer');
  const config = await getPlatformConfig(ctx, scope);
  if (input.currency !== undefined && input.amountToSend === undefined)
    throw invalidInput('currency', 'currency applies to amountToSend, which is missing', 'requires:amountToSend');
  const amountCurrency = input.amountToSend === undefined ? null : (input.currency ?? primaryCurrency(config));
  if (amountCurrency !== null && !config.supportedCurrencies.includes(amountCurrency)) {
    throw invalidInput(
      'currency',
      `${amountCurrency} is not one of the platform's supported currencies`,
      'supportedCurrency',
    );
  }
  const now = scopeNowMs(ctx, scope);
  const expiresAt = input.expiresAt === undefined ? null : Date.parse(input.expiresAt);
  if (expiresAt !== null && expiresAt <= now)
    throw invalidInput('expiresAt', `expiresAt must be in the future (now is ${iso(now)})`, 'future');

  return store.tx(async (trx) => {
    const row: InvitationsTable = {
      code: newInvitationCode(),
      platform_id: scope.platformId,
      environment: scope.environment,
      inviter_uma: input.inviterUma,
      inviter_customer_id: inviter.id,
      status: 'PENDING',
      first_name: input.firstName ?? null,
      amount_to_send: input.amountToSend === undefined ? null : BigInt(input.amountToSend),
      amount_currency: amountCurrency,
      invitee_uma: null,
      claimed_at: null,
      expires_at: expiresAt === null ? null : BigInt(expiresAt),
      created_at: BigInt(now),
      updated_at: BigInt(now),
    };
    await trx.insertInto('invitations').values(row).execute();
    if (expiresAt !== null)
      await enqueueJob(
        trx,
        scope,
        'invitation.expire',
        { code: row.code },
        wallNowMs(ctx),
        expiresAt - now,
        ownedJobId(row.code),
      );
    return toInvitation(deps, row, now);
  });
}

async function get(deps: InvitationDeps, scope: Scope, code: string): Promise<Invitation> {
  const { ctx } = deps;
  const { store } = ctx;
  const { db } = store;
  const row = await load(deps, db, scope.environment, code);
  return toInvitation(deps, row, scopeNowMs(ctx, await inviterScopeOf(deps, row)));
}

/**
 * Any platform of the environment may claim. The INVITATION.CLAIMED event belongs to the inviter's
 * platform (its webhook tells it to send the promised amount) and commits with the claim.
 */
async function claim(deps: InvitationDeps, scope: Scope, code: string, inviteeUma: string): Promise<Invitation> {
  const { ctx } = deps;
  const { store } = ctx;
  const { db } = store;
  if (!isUmaAddress(inviteeUma))
    throw new AppError('INVALID_UMA_ADDRESS', 'inviteeUma must look like $name@domain', { field: 'inviteeUma' });
  const inviterScope = await inviterScopeOf(deps, await load(deps, db, scope.environment, code));
  return store.tx(async (trx) => {
    const row = await load(deps, trx, scope.environment, code, true);
    const now = scopeNowMs(ctx, inviterScope);
    requirePending(row, now);
    if (inviteeUma.toLowerCase() === row.inviter_uma.toLowerCase())
      throw invalidInput('inviteeUma', 'An inviter cannot claim their own invitation', 'notInviter');
    const claimed: InvitationsTable = {
      ...row,
      status: 'CLAIMED',
      invitee_uma: inviteeUma,
      claimed_at: BigInt(now),
      updated_at: BigInt(now),
    };
    if (
      !(await transition(trx, code, 'CLAIMED', {
        invitee_uma: inviteeUma,
        claimed_at: claimed.claimed_at,
        updated_at: claimed.updated_at,
      }))
    ) {
      throw movedMeanwhile(await load(deps, trx, scope.environment, code), now);
    }
    // Claimed, it can no longer expire: its expiry job is called off with the claim (as a cancel's is).
    if (row.expires_at !== null) await callOffJob(trx, ownedJobId(code), wallNowMs(ctx));
    const invitation = toInvitation(deps, claimed, now);
    await recordEvent(trx, inviterScope, { type: 'INVITATION.CLAIMED', objectId: code, data: invitation }, now);
    return invitation;
  });
}

/** Only the creating platform may cancel (403 for any other), and only while PENDING (400). */
async function cancel(deps: InvitationDeps, scope: Scope, code: string): Promise<Invitation> {
  const { ctx } = deps;
  const { store } = ctx;
  return store.tx(async (trx) => {
    const row = await load(deps, trx, scope.environment, code, true);
    if (row.platform_id !== scope.platformId)
      throw new AppError('FORBIDDEN', `Invitation ${code} was created by another platform; only it can cancel it`);
    const now = scopeNowMs(ctx, scope);
    requirePending(row, now);
    const cancelled: InvitationsTable = { ...row, status: 'CANCELLED', updated_at: BigInt(now) };
    if (!(await transition(trx, code, 'CANCELLED', { updated_at: cancelled.updated_at })))
      throw movedMeanwhile(await load(deps, trx, scope.environment, code), now);
    if (row.expires_at !== null) await callOffJob(trx, ownedJobId(code), wallNowMs(ctx));
    return toInvitation(deps, cancelled, now);
  });
}

/**
 * The expiry job. Idempotent and state-guarded: a claimed or cancelled invitation stays as it is. The
 * public event catalogue has no INVITATION.EXPIRED type, so expiry records no event.
 */
async function expire(deps: InvitationDeps, { code }: JobPayloads['invitation.expire'], scope: Scope): Promise<void> {
  const { ctx } = deps;
  const { store } = ctx;
  const { db } = store;
  const now = BigInt(scopeNowMs(ctx, scope));
  await db
    .updateTable('invitations')
    .set({ status: 'EXPIRED', updated_at: now })
    .where('code', '=', code)
    .where('platform_id', '=', scope.platformId)
    .where('status', '=', 'PENDING')
    .where('expires_at', '<=', now)
    .execute();
}

interface InvitationDeps {
  ctx: Ctx;
}

export interface InvitationService {
  /** A new PENDING invitation from one of the platform's UMA addresses. Raises INVALID_INPUT, INVALID_UMA_ADDRESS. */
  create(scope: Scope, input: InvitationInput): Promise<Invitation>;
  /** An invitation by its code. Raises INVITATION_NOT_FOUND. */
  get(scope: Scope, code: string): Promise<Invitation>;
  /**
   * Claims a PENDING invitation for the invitee's UMA address. Raises INVITATION_NOT_FOUND, INVALID_INPUT,
   * INVALID_UMA_ADDRESS, EXPIRED, INVITATION_ALREADY_CLAIMED, INVITATION_CANCELLED, CONFLICT.
   */
  claim(scope: Scope, code: string, inviteeUma: string): Promise<Invitation>;
  /**
   * The inviter cancels a PENDING invitation. Raises INVITATION_NOT_FOUND, FORBIDDEN (not the inviter), EXPIRED,
   * INVITATION_ALREADY_CLAIMED, INVITATION_CANCELLED, CONFLICT.
   */
  cancel(scope: Scope, code: string): Promise<Invitation>;
  /** The expiry job: a still PENDING invitation becomes EXPIRED, with its event. */
  expire(payload: JobPayloads['invitation.expire'], scope: Scope): Promise<void>;
}

export function makeInvitationService(ctx: Ctx): InvitationService {
  const deps: InvitationDeps = { ctx };
  return {
    create: bindDeps(deps, create),
    get: bindDeps(deps, get),
    claim: bindDeps(deps, claim),
    cancel: bindDeps(deps, cancel),
    expire: bindDeps(deps, expire),
  };
}
