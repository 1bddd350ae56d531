import assert from 'node:assert/strict';
import { verify, type KeyObject } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { TestPlatform, TestServer } from '../helpers/harness.ts';
import type { Received } from '../webhooks/helpers.ts';

let serial = 0;

/** A sandbox customer of `p` (internal accounts in every currency the platform supports). */
export async function customer(p: TestPlatform): Promise<{ id: string; umaAddress: string }> {
  const res = await p.api.post('/customers', {
    customerType: 'INDIVIDUAL',
    platformCustomerId: `payee-${++serial}`,
    fullName: 'Rita Receiver',
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { id: res.body.id, umaAddress: res.body.umaAddress };
}

/** Points the platform's sandbox webhooks at `url` and consumes the TEST that a new endpoint triggers. */
export async function useEndpoint(server: TestServer, p: TestPlatform, url: string | null): Promise<void> {
  const res = await p.api.patch('/config', { webhookEndpoint: url });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await server.app.services.worker.drain({ platformId: p.platformId });
}

/** Checks X-Grid-Signature over the raw body with the ECDSA public key GET /config publishes. */
export function gridSignatureVerifies(
  raw: Buffer,
  headers: IncomingHttpHeaders,
  publicKey: string | KeyObject,
): boolean {
  const header = headers['x-grid-signature'];
  if (typeof header !== 'string') return false;
  const { v, s } = JSON.parse(header) as { v: string; s: string };
  return v === '1' && verify('sha256', raw, publicKey, Buffer.from(s, 'base64'));
}

/** Every delivery verifies, and a copy with one changed byte does not. */
export async function assertSigned(p: TestPlatform, received: readonly Received[]): Promise<void> {
  const { webhookPublicKey } = (await p.api.get('/config')).body;
  assert.ok(received.length > 0, 'something was delivered');
  for (const got of received) {
    assert.ok(gridSignatureVerifies(got.raw, got.headers, webhookPublicKey), `${got.body.type} verifies`);
    const changed = Buffer.from(got.raw);
    changed[Math.floor(changed.length / 2)]! ^= 1;
    assert.ok(
      !gridSignatureVerifies(changed, got.headers, webhookPublicKey),
      `${got.body.type} with a changed byte fails`,
    );
  }
}

/** The (legacy or current) event type and transaction status of a delivery, e.g. `INCOMING_PAYMENT PENDING`. */
export function summary(got: Received): string {
  const tx = got.body.transaction ?? got.body.data;
  return `${got.body.type} ${tx?.status ?? ''}`.trim();
}
