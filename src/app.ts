import pino, { type Logger } from 'pino';
import type { Config } from './config.ts';
import { systemClock, type Clock } from './domain/clock.ts';
import { buildHttp, type Http } from './http/server.ts';
import { JobWorker } from './jobs/worker.ts';
import { makeMetrics } from './metrics.ts';
import type { Ctx } from './services/context.ts';
import { rateAsNumber } from './domain/rates.ts';
import { makeBeneficialOwnerService } from './services/beneficial-owners.ts';
import { makeCustomerService } from './services/customers.ts';
import { makeDocumentService } from './services/documents.ts';
import { INVITATION_EXPIRE_JOB, makeInvitationService } from './services/invitations.ts';
import { makeReceiverLookupService, type EstimateRate } from './services/receiver-lookups.ts';
import { makeVerificationService } from './services/verifications.ts';
import { makeDocumentFileStore } from './store/document-files.ts';
import { makeExternalAccountService } from './services/external-accounts.ts';
import { makeIncomingPaymentService } from './services/incoming-payments.ts';
import { makeInternalAccountService } from './services/internal-accounts.ts';
import { makePlatformConfigService } from './services/platform-config.ts';
import { loadScope } from './services/platforms.ts';
import { makeSandboxClockService } from './services/sandbox-clock.ts';
import { makeTokenService } from './services/tokens.ts';
import { makeTransactionService } from './services/transactions.ts';
import { makeTransferService } from './services/transfers.ts';
import { makeQuoteService } from './services/quotes.ts';
import { makeRateService } from './services/rates.ts';
import { migrate, openStore, type Store } from './store/db.ts';
import type { Environment } from './store/schema.ts';
import { makeWebhookService } from './webhooks/delivery.ts';

export function makeLogger(config: Config): Logger {
  return pino({
    level: config.logLevel,
    // Credentials never reach the logs, whatever a serializer later decides to include.
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.clientSecret', '*.secret', '*.privateKey'],
      censor: '[redacted]',
    },
  });
}

/** `random` feeds the webhook retry jitter; tests pass a fixed one to know when retries fall due. */
export function makeServices(ctx: Ctx, log: Logger, random: () => number = Math.random) {
  const metrics = makeMetrics(ctx.store);
  const worker = new JobWorker(
    ctx.store,
    ctx.clock,
    log,
    {
      pollMs: ctx.config.jobPollMs,
      // Longer than the longest webhook POST (WEBHOOK_TIMEOUT_MS ≤ 30 s), so no other process claims it mid-flight.
      leaseMs: 60_000,
      batchSize: 20,
      maxAttempts: 10,
      scopeOf: (platformId, environment) => loadScope(ctx, platformId, environment as Environment),
    },
    metrics.jobs,
  );
  const customers = makeCustomerService(ctx);
  const externalAccounts = makeExternalAccountService(ctx, customers);
  const transactions = makeTransactionService(ctx, worker);
  const rates = makeRateService(ctx);
  // Receiver lookups estimate with the same rates quotes lock: the sandbox table, or the operator's file.
  const estimateRate: EstimateRate = async (scope, from, to) => {
    try {
      return rateAsNumber(rates.pair(scope, from, to).rate);
    } catch {
      return undefined;
    }
  };
  const beneficialOwners = makeBeneficialOwnerService(ctx, customers);
  const invitations = makeInvitationService(ctx);
  const documentFiles = makeDocumentFileStore(ctx.config.dataDir);
  worker.register(INVITATION_EXPIRE_JOB, (job, scope) => invitations.expire(job, scope));
  const webhooks = makeWebhookService(ctx, worker, log, random);
  return {
    ctx,
    log,
    metrics,
    worker,
    tokens: makeTokenService(ctx),
    customers,
    internalAccounts: makeInternalAccountService(ctx),
    sandboxClock: makeSandboxClockService(ctx, worker),
    externalAccounts,
    transactions,
    rates,
    transfers: makeTransferService(ctx, worker, transactions, externalAccounts),
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
  };
}

export type Services = ReturnType<typeof makeServices>;

export interface App {
  http: Http;
  store: Store;
  services: Services;
  close(): Promise<void>;
}

export interface AppOptions {
  clock?: Clock;
  /** Random source of the webhook retry jitter (Math.random by default). */
  random?: () => number;
  validateResponses?: boolean;
}

/** Opens the database and brings its schema up to date: what the server and every CLI command start with. */
export async function openServices(
  config: Config,
  clock: Clock = systemClock,
  random: () => number = Math.random,
): Promise<{ store: Store; services: Services }> {
  const store = openStore({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    poolSize: config.databasePoolSize,
  });
  try {
    await migrate(store);
  } catch (err) {
    await store.close();
    throw err;
  }
  return { store, services: makeServices({ store, clock, config }, makeLogger(config), random) };
}

/** Wires services, workers and HTTP on an up-to-date database. Does not listen. */
export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const { store, services } = await openServices(config, options.clock, options.random);
  const http = await buildHttp(services, {
    logger: services.log,
    bodyLimitBytes: config.bodyLimitBytes,
    validateResponses: options.validateResponses ?? false,
    ready: () => store.ping(),
  });
  if (config.runWorkers) services.worker.start();
  let closed = false;
  return {
    http,
    store,
    services,
    async close() {
      if (closed) return;
      closed = true;
      // Stop taking requests, let those in flight finish, stop the workers, then close the database.
      await http.close();
      await services.worker.stop();
      await store.close();
    },
  };
}
