/**
 * The TEST webhook (POST /webhooks/test): sent now to the configured endpoint or a given url, and the
 * receiver's answer reported to the caller. Not an event row, not retried.
 */
import { AppError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { Scope } from '../context.ts';
import { getPlatformConfig } from '../platforms.ts';
import { signAndPost, type PostDeps } from './sign-and-post.ts';
import { checkWebhookUrl, publicTargetsOnly } from './url.ts';

export interface TestWebhookResult {
  url: string;
  response_status: number;
  response_body: string;
}

/**
 * A 2xx is success; any other answer, or none, is a 400 WEBHOOK_DELIVERY_ERROR whose details carry
 * the receiver's status and body (or the connection error).
 */
export async function sendTestWebhook(
  deps: PostDeps,
  scope: Scope,
  targetUrl: string | undefined,
): Promise<TestWebhookResult> {
  const { ctx } = deps;
  const config = await getPlatformConfig(ctx, scope);
  const url =
    targetUrl !== undefined
      ? checkWebhookUrl(targetUrl, scope.environment, 'url', publicTargetsOnly(ctx.config, scope.environment))
      : config.webhookEndpoint;
  if (!url)
    throw new AppError(
      'WEBHOOK_ENDPOINT_NOT_SET',
      'No webhook endpoint is configured; set webhookEndpoint with PATCH /config or give a url',
    );
  const event = { id: newId('Webhook'), type: 'TEST', data: {} };
  const result = await signAndPost(deps, scope, event, config.webhookEnvelope, url);
  if (result.status === null) {
    throw new AppError('WEBHOOK_DELIVERY_ERROR', `The test webhook could not be delivered: ${result.error}`, {
      url,
      error: result.error,
    });
  }
  const answer = { url, response_status: result.status, response_body: result.body ?? '' };
  if (result.status < 200 || result.status >= 300) {
    throw new AppError('WEBHOOK_DELIVERY_ERROR', `The webhook endpoint answered ${result.status}`, answer);
  }
  return answer;
}
