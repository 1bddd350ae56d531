import { invalidInput } from '../domain/errors.ts';
import type { Environment } from '../store/schema.ts';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * A webhook URL a platform may give: absolute http(s), no embedded credentials (they would end up in
 * logs and attempt records), HTTPS in production where the payload carries real customers' data.
 * Returns the normalized URL; throws a 400 naming `field`.
 */
export function checkWebhookUrl(value: string, environment: Environment, field: string): string {
  if (value.length > MAX_WEBHOOK_URL_LENGTH) throw invalidInput(field, `${field} must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`, 'maxLength');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidInput(field, `${field} must be an absolute http(s) URL`, 'url');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidInput(field, `${field} must use http or https`, 'url');
  if (environment === 'production' && url.protocol !== 'https:') throw invalidInput(field, `${field} must use https in production`, 'https');
  if (url.username || url.password) throw invalidInput(field, `${field} must not carry credentials`, 'url');
  return url.href;
}
