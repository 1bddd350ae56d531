// The composition of every service: one factory that binds each service to what it depends on. The
// HTTP layer, the CLI and the tests reach services through the Services type defined here.
import type { Logger } from 'pino';
import { scopeNowMs, wallNowMs, type Ctx, type Scope } from '../context.ts';
import { rateAsNumber } from '../domain/rates.ts';
import { JobWorker, type JobCounter } from '../jobs/worker.ts';
import { makeMetrics, type Metrics } from '../metrics.ts';
import type { Environment } from '../domain/environments.ts';
import { makeDocumentFileStore, type DocumentFileStore } from '../store/document-files.ts';
import { makeWebhookService, type WebhookService } from '../webhooks/service.ts';
import { makeBeneficialOwnerService, type BeneficialOwnerService } from './beneficial-owners.ts';
import { makeCustomerService, type CustomerService } from './customers.ts';
import { makeDocumentService, type DocumentService } from './documents.ts';
import { makeExternalAccountService, type ExternalAccountService } from './external-accounts.ts';
import { makeIncomingPaymentService, type IncomingPaymentService } from './incoming-payments.ts';
import { makeInternalAccountService, type InternalAccountService } from './internal-accounts.ts';
import { makeInvitationService, type InvitationService } from './invitations.ts';
import { makeOverviewService, type OverviewService } from './overview.ts';
import { makePlatformConfigService, type PlatformConfigService } from './platform-config.ts';
import { loadScope } from '../platforms.ts';
import { makeConnectorService, type ConnectorService } from './connectors/index.ts';
import { makeBankService, type BankService } from './bank/index.ts';
import { makeBankIncomingService, type BankIncomingService } from './bank/incoming.ts';
import { makeQuoteService, type QuoteService } from './quotes/index.ts';
import { makeRateService, type RateService } from './rates.ts';
import { makeReceiverLookupService, type EstimateRate, type ReceiverLookupService } from './receiver-lookups.ts';
import { makeSandboxClockService, type SandboxClockService } from './sandbox-clock.ts';
import { makeSandboxTriggerService, type SandboxTriggerService } from './sandbox-triggers.ts';
import { makeSandboxFaults, type SandboxFaults } from './sandbox-faults.ts';
import { makeSandboxRequestLog, type SandboxRequestLog } from './sandbox-requests.ts';
import { makeSandboxWorkspaceService, type SandboxWorkspaceService } from './sandbox-workspaces.ts';
import { makeTokenService, type TokenService } from './tokens.ts';
import { makeTransactionService, type TransactionService } from './transactions/index.ts';
import { makeTransferService, type TransferService } from './transfers.ts';
import { makeVerificationService, type VerificationService } from './verifications.ts';
import { forgetExpiredKeys } from './idempotency.ts';
import { checkDueLedgers, LEDGER_CHECK_PASS_EVERY_MS } from '../ledger/checks.ts';

/** How often each worker process purges expired idempotency keys. */
const IDEMPOTENCY_PURGE_EVERY_MS = 15 * 60_000;
/** A done job is kept an hour (to look at a job that just ran; nothing reads it), a failed one FAILED_JOB_TTL_HOURS. */
export const DONE_JOB_KEEP_MS = 3_600_000;
/**
 * Claims between two vacuums of the job table on PostgreSQL (jobs/queue.ts, vacuumJobs): under load a claim
 * then walks at most what a few seconds of jobs left, and each vacuum takes tens of milliseconds.
 */
const JOB_VACUUM_AFTER_CLAIMS = 2_000;

/** The job worker of this process: how long its claims hold, how much it takes at once. */
function makeWorker(ctx: Ctx, log: Logger, counter: JobCounter): JobWorker {
  return new JobWorker(
    ctx.store,
    ctx.clock,
    log,
    {
      pollMs: ctx.config.jobPollMs,
      // Longer than the longest webhook POST (WEBHOOK_TIMEOUT_MS ≤ 30 s), so no other process claims it mid-flight.
      leaseMs: 60_000,
      // Longer than a group's wait for a pooled connection (10 s, store/db.ts) and its transaction.
      transactionalLeaseMs: 20_000,
      // A loaded server's event loop lags by tens of milliseconds, so a delivery takes a few hundred: only
      // many side by side keep up with the events a busy platform makes (docs/performance.md).
      batchSize: 100,
      // Half the pool: a backlog of rail steps falling due at once leaves the other half to the API.
      groupsAtOnce: Math.max(1, Math.floor(ctx.config.databasePoolSize / 2)),
      outsideLimit: 256,
      outsidePerScope: 128,
      maxAttempts: 10,
      scopeOf: (platformId, environment) => loadScope(ctx, platformId, environment as Environment),
    },
    counter,
  );
}

/** The two clocks of context.ts, for screens that show times: the platform's, and real time. */
export interface Clocks {
  /** The platform's time: real time plus its sandbox clock's offset. */
  scopeNowMs(scope: Scope): number;
  /** Real time, for what the process itself did (a ledger check, a logged request). */
  wallNowMs(): number;
}

/** Every service, bound: what the HTTP layer, the dashboard, the CLI and the tests reach services through. */
export interface Services {
  ctx: Ctx;
  log: Logger;
  metrics: Metrics;
  worker: JobWorker;
  clocks: Clocks;
  tokens: TokenService;
  customers: CustomerService;
  internalAccounts: InternalAccountService;
  sandboxClock: SandboxClockService;
  externalAccounts: ExternalAccountService;
  transactions: TransactionService;
  rates: RateService;
  transfers: TransferService;
  quotes: QuoteService;
  beneficialOwners: BeneficialOwnerService;
  invitations: InvitationService;
  documentFiles: DocumentFileStore;
  documents: DocumentService;
  verifications: VerificationService;
  receiverLookups: ReceiverLookupService;
  webhooks: WebhookService;
  incomingPayments: IncomingPaymentService;
  platformConfig: PlatformConfigService;
  overview: OverviewService;
  sandboxRequests: SandboxRequestLog;
  sandboxFaults: SandboxFaults;
  sandboxWorkspaces: SandboxWorkspaceService;
  sandboxTriggers: SandboxTriggerService;
  connectors: ConnectorService;
  /** The ISO 20022 bank-file connectors: exports (and, with them, what comes back from the bank). */
  bank: BankService;
  /** What the bank-file connectors' banks send back: status reports, notifications, credits. */
  bankIncoming: BankIncomingService;
}

/** `random` feeds the webhook retry jitter; tests pass a fixed one to know when retries fall due. */
export function makeServices(ctx: Ctx, log: Logger, random: () => number = Math.random): Services {
  const metrics = makeMetrics(ctx.store);
  const worker = makeWorker(ctx, log, metrics.jobs);
  const customers = makeCustomerService(ctx);
  const externalAccounts = makeExternalAccountService(ctx, customers);
  const transactions = makeTransactionService(ctx, worker);
  const rates = makeRateService(ctx);
  // Receiver lookups estimate with the same rates quotes lock: the sandbox table, or the operator's file.
  const estimateRate: EstimateRate = async (scope, from, to) => {
    const found = rates.findPair(scope, from, to);
    return found && rateAsNumber(found.rate);
  };
  const beneficialOwners = makeBeneficialOwnerService(ctx, customers);
  const invitations = makeInvitationService(ctx);
  const documentFiles = makeDocumentFileStore(ctx.config.dataDir);
  worker.register('invitation.expire', (payload, _job, scope) => invitations.expire(payload, scope));
  worker.every(IDEMPOTENCY_PURGE_EVERY_MS, () => forgetExpiredKeys(ctx));
  worker.purgeFinishedAfter({ doneMs: DONE_JOB_KEEP_MS, failedMs: ctx.config.failedJobTtlHours * 3_600_000 });
  if (ctx.store.engine === 'postgres') worker.vacuumAfterClaims(JOB_VACUUM_AFTER_CLAIMS);
  // Each platform environment's ledger check, for its dashboard (see ledger/checks.ts for why not on demand).
  worker.every(LEDGER_CHECK_PASS_EVERY_MS, () => checkDueLedgers(ctx));
  const webhooks = makeWebhookService(ctx, worker, log, random);
  const sandboxRequests = makeSandboxRequestLog(ctx, log);
  const sandboxFaults = makeSandboxFaults(ctx);
  const services = {
    ctx,
    log,
    metrics,
    worker,
    clocks: { scopeNowMs: (scope: Scope) => scopeNowMs(ctx, scope), wallNowMs: () => wallNowMs(ctx) },
    tokens: makeTokenService(ctx),
    customers,
    internalAccounts: makeInternalAccountService(ctx),
    sandboxClock: makeSandboxClockService(ctx, worker),
    externalAccounts,
    transactions,
    rates,
    transfers: makeTransferService(ctx, worker, transactions),
    quotes: makeQuoteService(ctx, worker, transactions, externalAccounts, customers, rates),
    beneficialOwners,
    invitations,
    documentFiles,
    documents: makeDocumentService(ctx, documentFiles, customers, beneficialOwners),
    verifications: makeVerificationService(ctx, customers),
    receiverLookups: makeReceiverLookupService(ctx, { customers, externalAccounts, estimateRate }),
    webhooks,
    incomingPayments: makeIncomingPaymentService(ctx, worker, transactions, webhooks),
    platformConfig: makePlatformConfigService(ctx, webhooks),
    overview: makeOverviewService(ctx),
    connectors: makeConnectorService(ctx, worker, metrics.registry),
    bank: makeBankService(ctx, worker, log),
    bankIncoming: makeBankIncomingService({ ctx, worker, transactions }, log),
    sandboxRequests,
    sandboxFaults,
    sandboxWorkspaces: makeSandboxWorkspaceService(ctx, { sandboxRequests, sandboxFaults }),
  };
  // Triggers drive the other services' flows, so they come last.
  return { ...services, sandboxTriggers: makeSandboxTriggerService(services) };
}
