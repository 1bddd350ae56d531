/**
 * One webhook as it leaves: the envelope serialized once, those exact bytes signed and posted, and what
 * was sent kept beside what came back (an attempt's record cannot rebuild them later: the envelope in
 * effect, the real-time header, randomized ECDSA signatures).
 */
import { iso } from '../domain/clock.ts';
import { scopeNowMs, type Ctx, type Scope } from '../context.ts';
import type { WebhookEnvelope } from '../store/schema.ts';
import { buildEnvelope, type EnvelopeEvent } from './envelope.ts';
import type { makeKeyStore } from './keys.ts';
import { webhookHeaders } from './signing.ts';
import { postWebhook, type PostResult } from './transport.ts';
import { publicTargetsOnly } from './url.ts';

/** What signing and posting need: the config, the platform's keys, and real time for the header. */
export interface PostDeps {
  ctx: Ctx;
  keyStore: ReturnType<typeof makeKeyStore>;
  realNow: () => number;
  /** Contract check mode's look at each webhook as sent (services/contract-check.ts); absent: none. */
  checkSent?: CheckSent | undefined;
}

/** Called with every webhook body sent and the receiver's status; it must not throw. */
export type CheckSent = (scope: Scope, eventType: string, body: unknown, status: number | null) => unknown;

/** What an attempt sent (the exact body and headers) and what came back. */
export type SendResult = PostResult & { sentAtMs: number; requestBody: string; requestHeaders: Record<string, string> };

/**
 * The envelope's timestamp is scope time (the sandbox clock); webhook-timestamp is real time, since
 * receivers compare it with their own clock to refuse replays.
 */
export async function signAndPost(
  deps: PostDeps,
  scope: Scope,
  event: EnvelopeEvent,
  envelope: WebhookEnvelope,
  url: string,
): Promise<SendResult> {
  const { ctx, keyStore, realNow } = deps;
  const keys = await keyStore.keysOf(scope);
  const sentAtMs = scopeNowMs(ctx, scope);
  const body = Buffer.from(JSON.stringify(buildEnvelope(event, envelope, iso(sentAtMs))));
  const headers = webhookHeaders(keys, event.id, Math.floor(realNow() / 1000), body, event.type);
  const publicOnly = publicTargetsOnly(ctx.config, scope.environment);
  const timeoutMs = ctx.config.webhookTimeoutMs;
  const posted = await postWebhook({ url, body, headers, timeoutMs, clockMs: realNow, publicOnly });
  // Checked as the receiver got it (the JSON text parsed back: no undefined, no bigint), once it answered.
  if (deps.checkSent) deps.checkSent(scope, event.type, JSON.parse(body.toString('utf8')), posted.status);
  return { sentAtMs, requestBody: body.toString('utf8'), requestHeaders: headers, ...posted };
}
