import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes, verify } from 'node:crypto';
import fc from 'fast-check';
import {
  BASE_RETRY_DELAY_MS,
  MAX_RETRY_DELAY_MS,
  RETRY_WINDOW_MS,
  isAcknowledged,
  nextRetryDelayMs,
  nextStep,
  retryCapMs,
  retryPolicyOf,
} from '../../src/webhooks/schedule.ts';
import { buildEnvelope, sentIn } from '../../src/webhooks/envelope.ts';
import { sealingKey, seal, unseal } from '../../src/webhooks/keys.ts';
import { gridSignature, standardPublicKey, webhookHeaders } from '../../src/webhooks/signing.ts';
import { checkWebhookUrl, publicTargetsOnly } from '../../src/webhooks/url.ts';

describe('the step after an attempt (nextStep)', () => {
  const status = fc.oneof(fc.constant(null), fc.integer({ min: 100, max: 599 }));
  const attempt = fc.integer({ min: 1, max: 10_000 });
  const elapsed = fc.integer({ min: 0, max: 2 * RETRY_WINDOW_MS });
  const random = fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true });
  const policy = fc.constantFrom('RETRY' as const, 'ONCE' as const);

  it('never retries an acknowledged answer or a ONCE event; retries stay within [0, cap) and the window', () => {
    fc.assert(
      fc.property(status, attempt, elapsed, random, policy, (s, n, ms, r, p) => {
        const step = nextStep({ status: s, attempt: n, elapsedMs: ms }, p, () => r);
        if (isAcknowledged(s)) assert.deepEqual(step, { kind: 'DELIVERED' }, 'an acknowledgement ends the run');
        else if (p === 'ONCE') assert.deepEqual(step, { kind: 'FAILED', windowOver: false }, 'ONCE is sent once');
        else if (step.kind === 'RETRY') {
          assert.ok(step.inMs >= 0 && step.inMs < retryCapMs(n), 'the wait is within [0, cap)');
          assert.ok(ms + step.inMs <= RETRY_WINDOW_MS, 'the retry falls inside the window');
        } else assert.deepEqual(step, { kind: 'FAILED', windowOver: true }, 'only the window ends a RETRY run');
      }),
    );
  });

  it('gives up monotonically: once the window is over for an elapsed time, it is over for every later one', () => {
    fc.assert(
      fc.property(attempt, elapsed, elapsed, random, (n, a, b, r) => {
        const [early, late] = a <= b ? [a, b] : [b, a];
        const stepAt = (ms: number) => nextStep({ status: 500, attempt: n, elapsedMs: ms }, 'RETRY', () => r).kind;
        if (stepAt(early) === 'FAILED') assert.equal(stepAt(late), 'FAILED', 'a later check does not revive the run');
      }),
    );
  });
});

describe('retry schedule', () => {
  it('waits within [0, cap) with cap = min(30 min, 10 s × 2^(n−1)), never past the 7-day window', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 0, max: RETRY_WINDOW_MS }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, elapsed, r) => {
          const cap = retryCapMs(attempt);
          assert.equal(cap, Math.min(MAX_RETRY_DELAY_MS, BASE_RETRY_DELAY_MS * 2 ** Math.min(attempt - 1, 20)));
          const delay = nextRetryDelayMs(attempt, elapsed, () => r);
          if (delay === null) {
            assert.ok(
              elapsed + Math.floor(r * cap) > RETRY_WINDOW_MS,
              'elapsed + Math.floor(r * cap) > RETRY_WINDOW_MS',
            );
          } else {
            assert.ok(
              Number.isInteger(delay) && delay >= 0 && delay < cap && delay <= MAX_RETRY_DELAY_MS,
              'Number.isInteger(delay) && delay >= 0 && delay < cap && delay <= MAX_RETRY_DELAY_MS',
            );
            assert.ok(elapsed + delay <= RETRY_WINDOW_MS, 'elapsed + delay <= RETRY_WINDOW_MS');
          }
        },
      ),
    );
  });

  it('caps grow monotonically to 30 minutes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1e6 }),
        (n) => retryCapMs(n) <= retryCapMs(n + 1) && retryCapMs(n + 1) <= MAX_RETRY_DELAY_MS,
      ),
    );
    assert.deepEqual([1, 2, 3, 4, 9, 200].map(retryCapMs), [
      10_000,
      20_000,
      40_000,
      80_000,
      MAX_RETRY_DELAY_MS,
      MAX_RETRY_DELAY_MS,
    ]);
  });

  it('a bad random source cannot make a negative or oversized wait', () => {
    for (const r of [NaN, -1, 1, 5, Infinity]) {
      const d = nextRetryDelayMs(3, 0, () => r)!;
      assert.ok(d >= 0 && d < retryCapMs(3), String(r));
    }
  });

  it('any failing run ends within 7 days (plus one last wait) whatever the jitter', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 1, maxLength: 50 }),
        (rs) => {
          let elapsed = 0;
          for (let attempt = 1; attempt < 100_000; attempt++) {
            const d = nextRetryDelayMs(attempt, elapsed, () => rs[attempt % rs.length]!);
            if (d === null) return elapsed <= RETRY_WINDOW_MS;
            elapsed += d;
          }
          // Only an all-zero jitter could run this long; it still never passes the window.
          return elapsed <= RETRY_WINDOW_MS;
        },
      ),
      { numRuns: 50 },
    );
  });

  it('TEST and INCOMING_PAYMENT.PENDING are sent once; everything else is retried', () => {
    assert.equal(retryPolicyOf('TEST'), 'ONCE');
    assert.equal(retryPolicyOf('INCOMING_PAYMENT.PENDING'), 'ONCE');
    for (const t of [
      'INCOMING_PAYMENT.COMPLETED',
      'OUTGOING_PAYMENT.PENDING',
      'CUSTOMER.KYC_APPROVED',
      'INVITATION.CLAIMED',
    ])
      assert.equal(retryPolicyOf(t), 'RETRY');
  });
});

describe('envelopes', () => {
  const ts = '2026-01-01T00:00:00.000Z';
  const tx = { id: 'Transaction:1', status: 'COMPLETED' };
  it('CURRENT is {id, type, timestamp, data} for every type; TEST has empty data', () => {
    assert.deepEqual(buildEnvelope({ id: 'Webhook:1', type: 'OUTGOING_PAYMENT.COMPLETED', data: tx }, 'CURRENT', ts), {
      id: 'Webhook:1',
      type: 'OUTGOING_PAYMENT.COMPLETED',
      timestamp: ts,
      data: tx,
    });
    assert.deepEqual(buildEnvelope({ id: 'Webhook:2', type: 'TEST', data: { x: 1 } }, 'CURRENT', ts), {
      id: 'Webhook:2',
      type: 'TEST',
      timestamp: ts,
      data: {},
    });
  });
  it('LEGACY maps each family to the specification shape', () => {
    const env = (type: string, data: unknown) => buildEnvelope({ id: 'Webhook:1', type, data }, 'LEGACY', ts);
    assert.deepEqual(env('OUTGOING_PAYMENT.PENDING', tx), {
      id: 'Webhook:1',
      type: 'OUTGOING_PAYMENT',
      timestamp: ts,
      transaction: tx,
    });
    assert.deepEqual(
      env('INCOMING_PAYMENT.PENDING', {
        ...tx,
        requestedReceiverCustomerInfoFields: [{ name: 'FULL_NAME', mandatory: true }],
      }),
      {
        id: 'Webhook:1',
        type: 'INCOMING_PAYMENT',
        timestamp: ts,
        transaction: tx,
        requestedReceiverCustomerInfoFields: [{ name: 'FULL_NAME', mandatory: true }],
      },
    );
    assert.deepEqual(env('INCOMING_PAYMENT.COMPLETED', tx), {
      id: 'Webhook:1',
      type: 'INCOMING_PAYMENT',
      timestamp: ts,
      transaction: tx,
    });
    assert.deepEqual(env('INVITATION.CLAIMED', { code: 'abc' }), {
      id: 'Webhook:1',
      type: 'INVITATION_CLAIMED',
      timestamp: ts,
      invitation: { code: 'abc' },
    });
    assert.deepEqual(
      env('CUSTOMER.KYB_APPROVED', {
        id: 'Customer:1',
        kybStatus: 'APPROVED',
        platformCustomerId: 'p1',
        fullName: 'x',
      }),
      {
        id: 'Webhook:1',
        type: 'KYC_STATUS',
        timestamp: ts,
        customerId: 'Customer:1',
        kycStatus: 'APPROVED',
        platformCustomerId: 'p1',
      },
    );
    const balance = { amount: 5, currency: { code: 'USD' } };
    assert.deepEqual(
      env('INTERNAL_ACCOUNT.BALANCE_UPDATED', { id: 'InternalAccount:1', balance, customerId: 'Customer:1' }),
      {
        id: 'Webhook:1',
        type: 'ACCOUNT_STATUS',
        timestamp: ts,
        accountId: 'InternalAccount:1',
        newBalance: balance,
        customerId: 'Customer:1',
      },
    );
    assert.deepEqual(env('TEST', {}), { id: 'Webhook:1', type: 'TEST', timestamp: ts, test: true });
    assert.deepEqual(env('VERIFICATION.APPROVED', { id: 'Verification:1' }), {
      id: 'Webhook:1',
      type: 'VERIFICATION.APPROVED',
      timestamp: ts,
      data: { id: 'Verification:1' },
    });
  });
  it('LEGACY leaves out the refund events (the FAILED notification carries the refund); CURRENT sends all', () => {
    for (const type of [
      'OUTGOING_PAYMENT.REFUND_COMPLETED',
      'OUTGOING_PAYMENT.REFUND_FAILED',
      'OUTGOING_PAYMENT.REFUND_PENDING',
      'INCOMING_PAYMENT.REFUND_COMPLETED',
    ]) {
      assert.equal(sentIn(type, 'LEGACY'), false, `${type} is not a LEGACY notification`);
      assert.equal(sentIn(type, 'CURRENT'), true, `${type} is a CURRENT notification`);
    }
    for (const type of [
      'OUTGOING_PAYMENT.FAILED',
      'OUTGOING_PAYMENT.PENDING',
      'INCOMING_PAYMENT.FAILED',
      'CUSTOMER.KYC_APPROVED',
      'TEST',
    ])
      assert.equal(sentIn(type, 'LEGACY'), true, `${type} is a LEGACY notification`);
  });
});

describe('signing and sealing', () => {
  const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const ed = generateKeyPairSync('ed25519');
  const keys = {
    ecdsaPrivateKey: ec.privateKey,
    ecdsaPublicKeyPem: ec.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    ed25519PrivateKey: ed.privateKey,
    ed25519PublicKeyPem: ed.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };

  it('X-Grid-Signature verifies the exact bytes and no others', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 300 }), fc.nat(), (bytes, at) => {
        const body = Buffer.from(bytes);
        const { v, s } = JSON.parse(gridSignature(body, keys.ecdsaPrivateKey)) as { v: string; s: string };
        assert.equal(v, '1');
        assert.ok(
          verify('sha256', body, keys.ecdsaPublicKeyPem, Buffer.from(s, 'base64')),
          "verify('sha256', body, keys.ecdsaPublicKeyPem, Buffer.from(s, 'base64'))",
        );
        const changed = Buffer.from(body);
        changed[at % changed.length]! ^= 1;
        assert.ok(
          !verify('sha256', changed, keys.ecdsaPublicKeyPem, Buffer.from(s, 'base64')),
          "!verify('sha256', changed, keys.ecdsaPublicKeyPem, Buffer.from(s, 'base64'))",
        );
      }),
      { numRuns: 30 },
    );
    assert.match(keys.ecdsaPublicKeyPem.replace(/\s/g, ''), /MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE/);
  });

  it('webhook-signature signs "{id}.{timestamp}.{body}" with Ed25519', () => {
    const body = Buffer.from('{"a":1}');
    const h = webhookHeaders(keys, 'Webhook:1', 1700000000, body, 'OUTGOING_PAYMENT.REFUND_COMPLETED');
    assert.equal(h['content-type'], 'application/json');
    assert.equal(h['x-webhook-event-type'], 'OUTGOING_PAYMENT.REFUND_COMPLETED', 'the fine-grained type');
    assert.equal(h['webhook-id'], 'Webhook:1');
    assert.equal(h['webhook-timestamp'], '1700000000');
    const [version, sig] = h['webhook-signature']!.split(',');
    assert.equal(version, 'v1a');
    assert.ok(
      verify(null, Buffer.from('Webhook:1.1700000000.{"a":1}'), ed.publicKey, Buffer.from(sig!, 'base64')),
      "verify(null, Buffer.from('Webhook:1.1700000000.{\"a\":1}'), ed.publicKey, Buffer.from(sig!, 'base64'))",
    );
    assert.ok(
      !verify(null, Buffer.from('Webhook:1.1700000001.{"a":1}'), ed.publicKey, Buffer.from(sig!, 'base64')),
      "!verify(null, Buffer.from('Webhook:1.1700000001.{\"a\":1}'), ed.publicKey, Buffer.from(sig!, 'base64'))",
    );
    assert.match(standardPublicKey(keys.ed25519PublicKeyPem), /^whpk_[A-Za-z0-9+/]{43}=$/);
  });

  it('a sealed key opens only with the same server key and owner', () => {
    const key = sealingKey(randomBytes(32));
    const secret = randomBytes(48);
    const sealed = seal(key, secret, 'Platform:1|sandbox|ED25519');
    assert.ok(!sealed.includes(secret.toString('base64')), "!sealed.includes(secret.toString('base64'))");
    assert.deepEqual(unseal(key, sealed, 'Platform:1|sandbox|ED25519'), secret);
    assert.throws(() => unseal(key, sealed, 'Platform:2|sandbox|ED25519'));
    assert.throws(() => unseal(sealingKey(randomBytes(32)), sealed, 'Platform:1|sandbox|ED25519'));
    const parts = sealed.split('.');
    const ct = Buffer.from(parts[3]!, 'base64');
    ct[0]! ^= 1;
    assert.throws(() =>
      unseal(key, [parts[0], parts[1], parts[2], ct.toString('base64')].join('.'), 'Platform:1|sandbox|ED25519'),
    );
  });
});

describe('webhook URLs', () => {
  it('accepts absolute http(s), https only in production, no credentials', () => {
    assert.equal(checkWebhookUrl('http://127.0.0.1:9/x', 'sandbox', 'f', false), 'http://127.0.0.1:9/x');
    assert.equal(checkWebhookUrl('https://example.com/hook', 'production', 'f', true), 'https://example.com/hook');
    for (const [url, env] of [
      ['http://example.com/hook', 'production'],
      ['ftp://example.com', 'sandbox'],
      ['/relative', 'sandbox'],
      ['https://user:pw@example.com', 'sandbox'],
      [`https://example.com/${'a'.repeat(2100)}`, 'sandbox'],
    ] as const) {
      assert.throws(
        () => checkWebhookUrl(url, env, 'webhookEndpoint', false),
        (e: any) => e.details?.field === 'webhookEndpoint',
        url,
      );
    }
  });

  it('public-only targets: production unless the operator allows internal ones; the sandbox if told', () => {
    const rules = (allowPrivateWebhookUrls: boolean, sandboxWebhooksPublicOnly: boolean) => ({
      allowPrivateWebhookUrls,
      sandboxWebhooksPublicOnly,
    });
    assert.deepEqual(
      [
        publicTargetsOnly(rules(false, false), 'production'),
        publicTargetsOnly(rules(true, false), 'production'),
        publicTargetsOnly(rules(false, false), 'sandbox'),
        publicTargetsOnly(rules(false, true), 'sandbox'),
      ],
      [true, false, false, true],
    );
  });
});
