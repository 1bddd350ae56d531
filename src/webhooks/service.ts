/**
 * The webhook service the rest of the code holds: it registers the delivery job with the worker and
 * gathers the parts, each in a file of its own: the delivery job (delivery.ts), the delivery log and
 * redelivery (event-log.ts), the TEST webhook (test-webhook.ts), and the keys receivers verify with.
 */
import type { Logger } from 'pino';
import type { Page, PageRequest } from '../domain/paging.ts';
import type { JobWorker } from '../jobs/worker.ts';
import { type Ctx, type Scope, wallNowMs } from '../context.ts';
import { type AnswerHandler, type DeliveryDeps, registerDeliveryJob } from './delivery.ts';
import {
  getEvent,
  listEvents,
  redeliverEvent,
  type RedeliveryDeps,
  type WebhookEvent,
  type WebhookEventFilters,
} from './event-log.ts';
import { makeKeyStore } from './keys.ts';
import { standardPublicKey } from './signing.ts';
import { sendTestWebhook, type TestWebhookResult } from './test-webhook.ts';
import type { CheckSent } from './sign-and-post.ts';

export interface WebhookService {
  /** Lets the sender of `eventType` act on what receivers answer (see AnswerHandler); one per type. */
  onAnswer(eventType: string, handler: AnswerHandler): void;
  /** The two public keys a receiver verifies with, as GET /config publishes them. */
  publicKeys(scope: Scope): Promise<{ webhookPublicKey: string; webhookStandardPublicKey: string }>;
  /** A page of the delivery log. */
  list(scope: Scope, filters: WebhookEventFilters, page: PageRequest): Promise<Page<WebhookEvent>>;
  /** One event with every attempt. Raises NOT_FOUND. */
  get(scope: Scope, eventId: string): Promise<WebhookEvent>;
  /** Starts a fresh delivery run now. Raises NOT_FOUND, CONFLICT. */
  redeliver(scope: Scope, eventId: string): Promise<WebhookEvent>;
  /** Sends a TEST webhook and reports the answer. Raises INVALID_INPUT, WEBHOOK_DELIVERY_ERROR. */
  sendTest(scope: Scope, targetUrl: string | undefined): Promise<TestWebhookResult>;
}

/** What delivery, the log and the TEST webhook share: built once by makeWebhookService. */
interface WebhookDeps extends DeliveryDeps, RedeliveryDeps {
  answerHandlers: Map<string, AnswerHandler>;
}

export function makeWebhookService(
  ctx: Ctx,
  worker: JobWorker,
  log: Logger,
  random: () => number = Math.random,
  checkSent?: CheckSent,
): WebhookService {
  const deps: WebhookDeps = {
    ctx,
    // Read at each use: inside an ambient transaction (an idempotent request) the log sees what it wrote.
    get db() {
      return ctx.store.db;
    },
    keyStore: makeKeyStore(ctx),
    realNow: () => wallNowMs(ctx),
    checkSent,
    answerHandlers: new Map<string, AnswerHandler>(),
    log,
    random,
    worker,
  };
  registerDeliveryJob(worker, deps);
  return {
    onAnswer: (eventType, handler) => registerAnswerHandler(deps.answerHandlers, eventType, handler),
    publicKeys: (scope) => publicKeysOf(deps, scope),
    list: (scope, filters, page) => listEvents(deps.db, scope, filters, page),
    get: (scope, eventId) => getEvent(deps.db, scope, eventId),
    redeliver: (scope, eventId) => redeliverEvent(deps, scope, eventId),
    sendTest: (scope, targetUrl) => sendTestWebhook(deps, scope, targetUrl),
  };
}

function registerAnswerHandler(handlers: Map<string, AnswerHandler>, eventType: string, handler: AnswerHandler) {
  if (handlers.has(eventType)) throw new Error(`answer handler for ${eventType} registered twice`);
  handlers.set(eventType, handler);
}

async function publicKeysOf(
  deps: WebhookDeps,
  scope: Scope,
): Promise<{ webhookPublicKey: string; webhookStandardPublicKey: string }> {
  const keys = await deps.keyStore.keysOf(scope);
  return {
    webhookPublicKey: keys.ecdsaPublicKeyPem,
    webhookStandardPublicKey: standardPublicKey(keys.ed25519PublicKeyPem),
  };
}
