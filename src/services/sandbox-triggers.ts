// Sandbox triggers: "make event X happen" for a developer who wants to see a webhook. Each trigger runs the
// real flow that produces the event, through the same services the API uses, in the caller's sandbox: it
// creates what the flow needs (a customer, a funded internal account, an external account whose suffix
// picks the outcome, see rails/sandbox-outcomes.ts, ...) and runs the flow's due steps now, until the event
// is recorded. Nothing here records an event itself: the flows do, as they always do.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { present } from '../domain/assert.ts';
import { type DocumentType, SNIFF_BYTES } from '../domain/documents.ts';
import { AppError } from '../domain/errors.ts';
import type { TriggerEvent } from '../domain/sandbox-triggers.ts';
import type { JobWorker } from '../jobs/worker.ts';
import type { DocumentFileStore } from '../store/document-files.ts';
import { withinTransaction } from '../store/db.ts';
import type { WebhookService } from '../webhooks/service.ts';
import { type Ctx, type Scope, scopeNowMs } from '../context.ts';
import { loadScope } from '../platforms.ts';
import type { BeneficialOwnerService } from './beneficial-owners.ts';
import type { CustomerService } from './customers.ts';
import type { DocumentService } from './documents.ts';
import type { ExternalAccountService } from './external-accounts.ts';
import type { InternalAccountService } from './internal-accounts.ts';
import type { InvitationService } from './invitations.ts';
import type { PlatformConfigService } from './platform-config.ts';
import type { QuoteService } from './quotes/index.ts';
import { moveSandboxClock } from './sandbox-clock.ts';
import type { TransactionService } from './transactions/index.ts';
import type { TransferService } from './transfers.ts';
import type { VerificationService } from './verifications.ts';

/** What a trigger created, by kind; only the kinds its flow needed are present. */
export interface TriggerObjects {
  customerId?: string;
  internalAccountId?: string;
  externalAccountId?: string;
  quoteId?: string;
  transactionId?: string;
  beneficialOwnerId?: string;
  documentIds?: string[];
  verificationId?: string;
  invitationCode?: string;
  inviteeCustomerId?: string;
  configId?: string;
}

export interface TriggerResult {
  event: TriggerEvent;
  /** The recorded event (`GET /webhook-events/{eventId}`): the id its webhook carries. */
  eventId: string;
  objects: TriggerObjects;
  /** How far the platform's sandbox clock was moved (only an expiry needs it), 0 otherwise. */
  clockAdvancedMs: number;
}

export interface SandboxTriggerDeps {
  ctx: Ctx;
  worker: JobWorker;
  customers: CustomerService;
  internalAccounts: InternalAccountService;
  externalAccounts: ExternalAccountService;
  quotes: QuoteService;
  transfers: TransferService;
  transactions: TransactionService;
  beneficialOwners: BeneficialOwnerService;
  documents: DocumentService;
  documentFiles: DocumentFileStore;
  verifications: VerificationService;
  invitations: InvitationService;
  platformConfig: PlatformConfigService;
  webhooks: WebhookService;
}

/** What a flow reports: the object its event is about, what it created, and any clock it moved. */
interface FlowResult {
  objectId: string;
  objects: TriggerObjects;
  clockAdvancedMs?: number;
}

type Flow = (deps: SandboxTriggerDeps, scope: Scope) => Promise<FlowResult>;

/** Payments move USD: every sandbox platform starts with it (a platform that dropped it gets a 400). */
const CURRENCY = 'USD';
const FUNDING_MINOR = 100_000;
const PAYMENT_MINOR = 10_000;
const ADDRESS = { line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' };
/** A minimal PDF: documents are recognised by their first bytes, and a verification needs some on file. */
const PDF = Buffer.from('%PDF-1.7\n1 0 obj << >> endobj\n%%EOF\n');

const tag = () => randomBytes(4).toString('hex');

async function payer(deps: SandboxTriggerDeps, scope: Scope, fund: boolean) {
  const customer = await deps.customers.create(scope, {
    customerType: 'INDIVIDUAL',
    platformCustomerId: `trigger-${tag()}`,
    fullName: 'Ada Lovelace',
  });
  const accounts = await deps.internalAccounts.listCustomerAccounts(
    scope,
    { customerId: customer.id, currency: CURRENCY },
    { limit: 1, order: 'asc' },
  );
  const account = accounts.data[0];
  if (!account)
    throw new AppError('INVALID_CURRENCY', `Triggers move ${CURRENCY}, which this platform no longer supports`, {
      field: 'event',
    });
  if (fund) await deps.internalAccounts.fundSandbox(scope, account.id, FUNDING_MINOR);
  return { customer, account };
}

/** A US bank account of the customer's whose number ends in `suffix`: the suffix picks the rail's outcome. */
async function bankAccount(deps: SandboxTriggerDeps, scope: Scope, customerId: string, suffix: string) {
  const digits = String(randomBytes(4).readUInt32BE(0) % 1_000_000).padStart(6, '0');
  return deps.externalAccounts.create(scope, {
    customerId,
    currency: CURRENCY,
    accountInfo: {
      accountType: 'US_ACCOUNT',
      accountNumber: `${digits}${suffix}`,
      routingNumber: '021000021',
      accountCategory: 'CHECKING',
      beneficiary: {
        beneficiaryType: 'INDIVIDUAL',
        fullName: 'Ada Lovelace',
        birthDate: '1990-02-28',
        nationality: 'GB',
      },
    },
  });
}

/**
 * A funded customer pays out to a bank account ending in `suffix` through a quote. Created, the quote's
 * transaction is PENDING; executed, it runs its rail outcome at once (quote outcomes in sandbox-outcomes.ts).
 */
async function payout(deps: SandboxTriggerDeps, scope: Scope, suffix: string, execute: boolean): Promise<FlowResult> {
  const { customer, account } = await payer(deps, scope, true);
  const destination = await bankAccount(deps, scope, customer.id, suffix);
  const quote = await deps.quotes.create(scope, {
    source: { sourceType: 'ACCOUNT', accountId: account.id },
    destination: { destinationType: 'ACCOUNT', accountId: destination.id },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: PAYMENT_MINOR,
  });
  if (execute) await deps.quotes.execute(scope, quote.id);
  return {
    objectId: quote.transactionId,
    objects: {
      customerId: customer.id,
      internalAccountId: account.id,
      externalAccountId: destination.id,
      quoteId: quote.id,
      transactionId: quote.transactionId,
    },
  };
}

/**
 * A quote left unexecuted expires when its platform's clock reaches its expiresAt, and nothing but time
 * gets it there: this is the one trigger that moves the sandbox clock, by exactly what is left of the
 * quote's life (the clock's own rule: the platform's pending jobs fall due earlier by as much). Then the
 * quote's expiry step runs now rather than when its job comes round.
 */
async function expiredPayout(deps: SandboxTriggerDeps, scope: Scope): Promise<FlowResult> {
  const created = await payout(deps, scope, '000', false);
  const quoteId = present(created.objects.quoteId, 'a payout makes a quote');
  const { expiresAt } = await deps.quotes.get(scope, quoteId);
  const byMs = Math.max(1, Date.parse(expiresAt) - scopeNowMs(deps.ctx, scope));
  await deps.ctx.store.tx((trx) => moveSandboxClock(trx, scope, byMs));
  const later = await loadScope(deps.ctx, scope.platformId, scope.environment);
  if (!(await deps.quotes.expireIfDue(later, quoteId))) throw new Error(`quote ${quoteId} did not expire`);
  return { ...created, clockAdvancedMs: byMs };
}

/**
 * A customer's bank account ending in `suffix` pays into their internal account (transfer-in). Created,
 * the payment is PENDING; `process` runs its rail step now (the job the transfer queued would run the same
 * step and then finds nothing left to do): PROCESSING and the outcome (transfer outcomes, sandbox-outcomes.ts).
 */
async function deposit(deps: SandboxTriggerDeps, scope: Scope, suffix: string, process: boolean): Promise<FlowResult> {
  const { customer, account } = await payer(deps, scope, false);
  const source = await bankAccount(deps, scope, customer.id, suffix);
  const payment = await deps.transfers.transferIn(scope, {
    source: { accountId: source.id },
    destination: { accountId: account.id },
    amount: PAYMENT_MINOR,
  });
  if (process)
    await deps.ctx.store.tx(async (trx) => {
      const row = await deps.transactions.loadForUpdate(trx, scope, payment.id);
      if (row) await deps.transactions.process(trx, scope, row);
    });
  return {
    objectId: payment.id,
    objects: {
      customerId: customer.id,
      internalAccountId: account.id,
      externalAccountId: source.id,
      transactionId: payment.id,
    },
  };
}

/** A customer with nothing but a name submits a verification: RESOLVE_ERRORS lists what is missing. */
async function incompleteVerification(deps: SandboxTriggerDeps, scope: Scope): Promise<FlowResult> {
  const customer = await deps.customers.create(scope, {
    customerType: 'INDIVIDUAL',
    platformCustomerId: `trigger-${tag()}`,
    fullName: 'Ada Lovelace',
  });
  const verification = await deps.verifications.submit(scope, customer.id);
  return { objectId: verification.id, objects: { customerId: customer.id, verificationId: verification.id } };
}

async function upload(deps: SandboxTriggerDeps, scope: Scope, holder: string, documentType: DocumentType) {
  const file = await deps.documentFiles.receive(Readable.from([PDF]), SNIFF_BYTES);
  try {
    const fields = { documentType, country: 'US', documentHolder: holder };
    return await deps.documents.create(scope, { fields, fileName: `${documentType.toLowerCase()}.pdf`, file });
  } finally {
    await deps.documentFiles.discard(file.tempPath);
  }
}

/**
 * A business with everything a review needs (a beneficial owner, its passport, a registry excerpt and a proof
 * of address) submits a verification. The sandbox decides by the registration number's last three
 * characters (domain/kyc.ts): 001 PENDING (PENDING_MANUAL_REVIEW), 002 REJECTED, anything else APPROVED.
 */
async function reviewedBusiness(deps: SandboxTriggerDeps, scope: Scope, suffix: string) {
  const businessInfo = { legalName: 'Acme Ltd', country: 'US', registrationNumber: `RN-${tag()}-${suffix}` };
  const customer = await deps.customers.create(scope, {
    customerType: 'BUSINESS',
    platformCustomerId: `trigger-${tag()}`,
    address: ADDRESS,
    businessInfo,
  });
  const owner = await deps.beneficialOwners.create(scope, {
    customerId: customer.id,
    roles: ['UBO', 'DIRECTOR'],
    ownershipPercentage: 51,
    personalInfo: {
      firstName: 'Jane',
      lastName: 'Smith',
      birthDate: '1978-06-15',
      nationality: 'US',
      address: ADDRESS,
      idType: 'PASSPORT',
      identifier: 'X1234567',
    },
  });
  const documents = [
    await upload(deps, scope, customer.id, 'STATE_REGISTRY_EXCERPT'),
    await upload(deps, scope, customer.id, 'PROOF_OF_ADDRESS'),
    await upload(deps, scope, owner.id, 'PASSPORT'),
  ];
  const verification = await deps.verifications.submit(scope, customer.id);
  const objects: TriggerObjects = {
    customerId: customer.id,
    beneficialOwnerId: owner.id,
    documentIds: documents.map((d) => d.id),
    verificationId: verification.id,
  };
  return { customer, businessInfo, verification, objects };
}

/** The event of a business review: about the verification or about the customer. */
function businessReview(suffix: string, about: 'verification' | 'customer'): Flow {
  return async (deps, scope) => {
    const { objects } = await reviewedBusiness(deps, scope, suffix);
    const objectId = about === 'verification' ? objects.verificationId : objects.customerId;
    return { objectId: present(objectId, 'a review names both'), objects };
  };
}

/**
 * A business goes to manual review (registration number …001), corrects its registration number and
 * submits again: approved, its kybStatus moves PENDING → APPROVED. (A business approved at the first
 * submission records no CUSTOMER event: sandbox customers start APPROVED, so nothing changed.)
 */
async function approvedAfterReview(deps: SandboxTriggerDeps, scope: Scope): Promise<FlowResult> {
  const first = await reviewedBusiness(deps, scope, '001');
  const customerId = first.customer.id;
  await deps.customers.update(scope, customerId, {
    customerType: 'BUSINESS',
    businessInfo: { ...first.businessInfo, registrationNumber: `RN-${tag()}-100` },
  });
  const again = await deps.verifications.submit(scope, customerId);
  return { objectId: customerId, objects: { ...first.objects, verificationId: again.id } };
}

/** A customer invites someone; another customer (the invitee, who joined) claims the invitation. */
async function claimedInvitation(deps: SandboxTriggerDeps, scope: Scope): Promise<FlowResult> {
  const create = (name: string) =>
    deps.customers.create(scope, {
      customerType: 'INDIVIDUAL',
      platformCustomerId: `trigger-${tag()}`,
      fullName: name,
    });
  const inviter = await create('Ada Lovelace');
  const invitee = await create('Grace Hopper');
  const invitation = await deps.invitations.create(scope, { inviterUma: inviter.umaAddress });
  await deps.invitations.claim(scope, invitation.code, invitee.umaAddress);
  return {
    objectId: invitation.code,
    objects: { customerId: inviter.id, invitationCode: invitation.code, inviteeCustomerId: invitee.id },
  };
}

/** The TEST event a new webhook endpoint gets, recorded again for the endpoint configured now. */
async function testEvent(deps: SandboxTriggerDeps, scope: Scope): Promise<FlowResult> {
  const { configId } = await deps.platformConfig.recordTest(scope);
  return { objectId: configId, objects: { configId } };
}

/**
 * Each event's flow. The suffixes are the sandbox's outcome tables (rails/sandbox-outcomes.ts): quotes 003
 * stay PROCESSING for 6 minutes, 004 fail with the money refunded, 007 fail and so does the refund;
 * transfers 002 fail with INSUFFICIENT_BALANCE; any other suffix completes.
 */
const FLOWS: Readonly<Record<TriggerEvent, Flow>> = {
  'OUTGOING_PAYMENT.PENDING': (deps, scope) => payout(deps, scope, '000', false),
  'OUTGOING_PAYMENT.PROCESSING': (deps, scope) => payout(deps, scope, '003', true),
  'OUTGOING_PAYMENT.COMPLETED': (deps, scope) => payout(deps, scope, '000', true),
  'OUTGOING_PAYMENT.FAILED': (deps, scope) => payout(deps, scope, '004', true),
  'OUTGOING_PAYMENT.REFUND_COMPLETED': (deps, scope) => payout(deps, scope, '004', true),
  'OUTGOING_PAYMENT.REFUND_FAILED': (deps, scope) => payout(deps, scope, '007', true),
  'OUTGOING_PAYMENT.EXPIRED': expiredPayout,
  'INCOMING_PAYMENT.PENDING': (deps, scope) => deposit(deps, scope, '000', false),
  'INCOMING_PAYMENT.COMPLETED': (deps, scope) => deposit(deps, scope, '000', true),
  'INCOMING_PAYMENT.FAILED': (deps, scope) => deposit(deps, scope, '002', true),
  'VERIFICATION.RESOLVE_ERRORS': incompleteVerification,
  'VERIFICATION.APPROVED': businessReview('100', 'verification'),
  'VERIFICATION.PENDING_MANUAL_REVIEW': businessReview('001', 'verification'),
  'VERIFICATION.REJECTED': businessReview('002', 'verification'),
  'CUSTOMER.KYB_PENDING': businessReview('001', 'customer'),
  'CUSTOMER.KYB_REJECTED': businessReview('002', 'customer'),
  'CUSTOMER.KYB_APPROVED': approvedAfterReview,
  'INVITATION.CLAIMED': claimedInvitation,
  TEST: testEvent,
};

/** What each flow does, in a sentence, for the people choosing one (the dashboard's Triggers tab). */
export const TRIGGER_SUMMARIES: Readonly<Record<TriggerEvent, string>> = {
  'OUTGOING_PAYMENT.PENDING': 'A funded customer quotes a payout to a bank account and leaves it unexecuted',
  'OUTGOING_PAYMENT.PROCESSING': 'A payout through a quote to an account ending 003: it stays PROCESSING for 6 minutes',
  'OUTGOING_PAYMENT.COMPLETED': 'A payout through a quote to an account ending 000: it completes',
  'OUTGOING_PAYMENT.FAILED': 'A payout to an account ending 004: the rail fails it and the amount is refunded',
  'OUTGOING_PAYMENT.REFUND_COMPLETED': 'A payout to an account ending 004: it fails and its refund completes',
  'OUTGOING_PAYMENT.REFUND_FAILED': 'A payout to an account ending 007: it fails and so does its refund',
  'OUTGOING_PAYMENT.EXPIRED': 'A payout quote left unexecuted; the sandbox clock moves to its expiry',
  'INCOMING_PAYMENT.PENDING': "A customer's bank account starts a deposit into their internal account",
  'INCOMING_PAYMENT.COMPLETED': 'A deposit from an account ending 000 completes',
  'INCOMING_PAYMENT.FAILED': 'A deposit from an account ending 002 fails (INSUFFICIENT_BALANCE)',
  'VERIFICATION.RESOLVE_ERRORS': 'A customer with nothing but a name submits a verification: it lists what is missing',
  'VERIFICATION.APPROVED': 'A business with an owner and its documents submits a verification: approved',
  'VERIFICATION.PENDING_MANUAL_REVIEW': 'A business whose registration number ends 001 goes to manual review',
  'VERIFICATION.REJECTED': 'A business whose registration number ends 002 is rejected',
  'CUSTOMER.KYB_PENDING': 'A business whose registration number ends 001: its KYB status becomes PENDING',
  'CUSTOMER.KYB_REJECTED': 'A business whose registration number ends 002: its KYB status becomes REJECTED',
  'CUSTOMER.KYB_APPROVED': 'A business in manual review corrects its registration number and is approved',
  'INVITATION.CLAIMED': 'A customer invites another, who claims the invitation',
  TEST: 'The test event, recorded again for the webhook endpoint configured now',
};

/**
 * Runs the flow of `event` in the caller's sandbox, in one database transaction (all of it or nothing),
 * and answers the recorded event with what was created. Raises FORBIDDEN for production.
 */
async function trigger(deps: SandboxTriggerDeps, scope: Scope, event: TriggerEvent): Promise<TriggerResult> {
  const { ctx } = deps;
  if (scope.environment !== 'sandbox')
    throw new AppError('FORBIDDEN', 'Sandbox endpoints cannot be called with production credentials');
  const result = await ctx.store.tx((trx) =>
    withinTransaction(trx, async () => {
      const flow = await FLOWS[event](deps, scope);
      const recorded = await deps.webhooks.list(
        scope,
        { type: event, objectId: flow.objectId },
        { limit: 1, order: 'desc' },
      );
      const eventId = present(recorded.data[0], `the ${event} flow recorded its event`).id;
      return { event, eventId, objects: flow.objects, clockAdvancedMs: flow.clockAdvancedMs ?? 0 };
    }),
  );
  // Its webhook (and any step the flow queued) leaves now that it has committed.
  deps.worker.kick();
  return result;
}

export interface SandboxTriggerService {
  /** Runs the flow that makes `event` happen, then hands its webhook to the worker. Raises FORBIDDEN (production). */
  trigger(scope: Scope, event: TriggerEvent): Promise<TriggerResult>;
}

export function makeSandboxTriggerService(deps: SandboxTriggerDeps): SandboxTriggerService {
  return { trigger: (scope, event) => trigger(deps, scope, event) };
}
