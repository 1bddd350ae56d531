/**
 * Signatures a receiver checks. Pure apart from the crypto primitives: the same key and bytes always
 * verify. Two schemes ride on every delivery:
 * - X-Grid-Signature: `{"v":"1","s":"<base64 DER ECDSA P-256 / SHA-256 of the body>"}`, as the public
 *   API's verifiers expect. It signs only the body, so it cannot by itself stop a replay.
 * - Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature `v1a,<base64 Ed25519>` over
 *   `{id}.{timestamp}.{body}`): the timestamp is signed, so receivers can refuse old deliveries.
 * Beside them, X-Webhook-Event-Type names the event's fine-grained type (OUTGOING_PAYMENT.REFUND_COMPLETED),
 * which the LEGACY body does not. Neither scheme covers headers, so it is not signed: it is for routing,
 * and it always agrees with the signed body (see docs/webhooks.md).
 */
import { createPublicKey, sign, type KeyObject } from 'node:crypto';

export interface SigningKeys {
  ecdsaPrivateKey: KeyObject;
  /** PEM SPKI, published as webhookPublicKey. */
  ecdsaPublicKeyPem: string;
  ed25519PrivateKey: KeyObject;
  /** PEM SPKI of the Ed25519 key. */
  ed25519PublicKeyPem: string;
}

export function gridSignature(body: Buffer, ecdsaPrivateKey: KeyObject): string {
  // Node signs EC keys in ASN.1 DER unless told otherwise: what Java, Node and Python verifiers read.
  const s = sign('sha256', body, ecdsaPrivateKey).toString('base64');
  return JSON.stringify({ v: '1', s });
}

export function standardSignature(
  id: string,
  timestampSeconds: number,
  body: Buffer,
  ed25519PrivateKey: KeyObject,
): string {
  const signed = Buffer.concat([Buffer.from(`${id}.${timestampSeconds}.`), body]);
  return `v1a,${sign(null, signed, ed25519PrivateKey).toString('base64')}`;
}

/** The header that names a delivery's fine-grained event type, in both envelopes. */
export const EVENT_TYPE_HEADER = 'x-webhook-event-type';

/** Every header of a delivery. `body` is the exact bytes that will be sent; `eventType` is OBJECT.EVENT or TEST. */
export function webhookHeaders(
  keys: SigningKeys,
  id: string,
  timestampSeconds: number,
  body: Buffer,
  eventType: string,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    [EVENT_TYPE_HEADER]: eventType,
    'x-grid-signature': gridSignature(body, keys.ecdsaPrivateKey),
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': standardSignature(id, timestampSeconds, body, keys.ed25519PrivateKey),
  };
}

/** The Standard Webhooks public key form: `whpk_` + base64 of the raw 32-byte Ed25519 key. */
export function standardPublicKey(ed25519PublicKeyPem: string): string {
  const jwk = createPublicKey(ed25519PublicKeyPem).export({ format: 'jwk' });
  return `whpk_${Buffer.from(jwk.x ?? '', 'base64url').toString('base64')}`;
}
