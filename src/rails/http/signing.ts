// Standard Webhooks' symmetric scheme (v1), both ways between the service and an HTTP adapter: an HMAC-SHA256
// over "<webhook-id>.<webhook-timestamp>.<body>" under the connector's `whsec_` secret. The service's own
// webhooks to platforms are signed otherwise (webhooks/signing.ts: ECDSA and Ed25519, public keys); here both
// ends hold the one secret the operator gave them.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';

/** How far a message's timestamp may be from our clock: older ones are replays, newer ones a wrong clock. */
export const TOLERANCE_SECONDS = 300;

/** The HMAC key a `whsec_<base64>` secret stands for; undefined when the secret is not of that form. */
export function hmacKeyOf(secret: string): Buffer | undefined {
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret);
  if (!match?.[1]) return undefined;
  const key = Buffer.from(match[1], 'base64');
  return key.length >= 16 ? key : undefined;
}

function signature(key: Buffer, id: string, timestamp: string, body: Buffer | string): string {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64');
}

/** The three headers of one signed message; `id` is kept across retries of the same message. */
export function signedHeaders(key: Buffer, body: string, nowMs: number, id = `msg_${randomUUID()}`) {
  const timestamp = String(Math.floor(nowMs / 1000));
  return {
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${signature(key, id, timestamp, body)}`,
  };
}

const header = (headers: Record<string, string | string[] | undefined>, name: string) => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** Why a message is not the connector's, or undefined when its signature and timestamp hold. */
export function refusalOf(
  key: Buffer,
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
  nowMs: number,
): string | undefined {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    return 'the webhook-id, webhook-timestamp and webhook-signature headers are required';
  if (!/^\d{1,12}$/.test(timestamp)) return 'webhook-timestamp is not a Unix time in seconds';
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > TOLERANCE_SECONDS)
    return `webhook-timestamp is more than ${TOLERANCE_SECONDS} s from this server's clock`;
  const expected = Buffer.from(signature(key, id, timestamp, body), 'base64');
  const matches = signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matches ? undefined : 'webhook-signature does not match the connector secret';
}
