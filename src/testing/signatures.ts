// The receiver side of the two signatures every delivery carries (docs/webhooks.md, src/webhooks/signing.ts),
// checked the way a platform's receiver would: with the public keys GET /config publishes, never with the
// server's private keys. Each scheme is judged on its own, so a test can tell which one a delivery fails.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** The two public keys of one platform's sandbox, as GET /config gives them. */
export interface WebhookPublicKeys {
  /** PEM SPKI of the ECDSA P-256 key: verifies X-Grid-Signature. */
  webhookPublicKey: string;
  /** `whpk_` + base64 of the raw Ed25519 key (Standard Webhooks): verifies webhook-signature. */
  webhookStandardPublicKey: string;
}

export interface SignatureCheck {
  /** X-Grid-Signature: ECDSA P-256 / SHA-256 over the body. */
  grid: boolean;
  /** webhook-signature: Ed25519 over `{webhook-id}.{webhook-timestamp}.{body}`, the timestamp recent enough. */
  standard: boolean;
  /** Why a check failed, for the test's failure message; undefined when both hold. */
  problem: string | undefined;
}

/** How far a Standard Webhooks timestamp may be from the receiver's clock (the scheme's usual tolerance). */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function gridHolds(raw: Buffer, headers: IncomingHttpHeaders, pem: string): boolean {
  let parsed: { v?: unknown; s?: unknown };
  try {
    parsed = JSON.parse(header(headers, 'x-grid-signature') ?? '{}') as typeof parsed;
  } catch {
    return false;
  }
  if (String(parsed.v) !== '1' || typeof parsed.s !== 'string') return false;
  const signature = Buffer.from(parsed.s, 'base64');
  return safely(() => verify('sha256', raw, pem, signature));
}

/** A signature that cannot even be decoded is a signature that does not verify, not a crash of the receiver. */
function safely(check: () => boolean): boolean {
  try {
    return check();
  } catch {
    return false;
  }
}

function ed25519Key(standardKey: string): KeyObject {
  const x = Buffer.from(standardKey.replace(/^whpk_/, ''), 'base64').toString('base64url');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
}

function standardProblem(raw: Buffer, headers: IncomingHttpHeaders, key: KeyObject, nowSeconds: number) {
  const id = header(headers, 'webhook-id');
  const timestamp = Number(header(headers, 'webhook-timestamp'));
  if (!id || !Number.isInteger(timestamp)) return 'webhook-id or webhook-timestamp is missing';
  if (Math.abs(nowSeconds - timestamp) > TIMESTAMP_TOLERANCE_SECONDS) {
    return `webhook-timestamp is more than ${TIMESTAMP_TOLERANCE_SECONDS} s from the receiver's clock`;
  }
  const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`), raw]);
  // The header may list several signatures (key rotation): one valid v1a entry is enough.
  const holds = (header(headers, 'webhook-signature') ?? '').split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    return (
      version === 'v1a' && !!signature && safely(() => verify(null, signed, key, Buffer.from(signature, 'base64')))
    );
  });
  return holds ? undefined : 'webhook-signature does not verify with webhookStandardPublicKey';
}

/** Both signatures of a delivery, checked against the platform's public keys at `nowSeconds` (Unix). */
export function checkSignatures(
  raw: Buffer,
  headers: IncomingHttpHeaders,
  keys: WebhookPublicKeys,
  nowSeconds: number,
): SignatureCheck {
  const grid = gridHolds(raw, headers, keys.webhookPublicKey);
  const standardFailure = standardProblem(raw, headers, ed25519Key(keys.webhookStandardPublicKey), nowSeconds);
  const problems = [
    ...(grid ? [] : ['X-Grid-Signature does not verify with webhookPublicKey']),
    ...(standardFailure ? [standardFailure] : []),
  ];
  return { grid, standard: !standardFailure, problem: problems.length > 0 ? problems.join('; ') : undefined };
}
