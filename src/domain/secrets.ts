import { createHash, timingSafeEqual } from 'node:crypto';

/** A fixed-length digest, so comparing two never leaks a secret's length or a prefix. */
const digest = (value: string) => createHash('sha256').update(value).digest();

/** Whether a secret someone sent is the configured one (operator token, sandbox admin key), in constant time. */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** Property names whose values are credentials wherever they appear (clientSecret, webhookSecret, password…). */
const SECRET_NAME = /secret|password|privatekey|apikey|authorization|signingkey/i;

/** A copy of a JSON value with every credential-bearing property replaced, at any depth: for what is kept to show. */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  // Bodies are bounded by the body limit; the depth bound keeps a pathological one from costing more.
  if (depth > 32) return '[redacted]';
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    copy[key] = SECRET_NAME.test(key) ? '[redacted]' : redactSecrets(item, depth + 1);
  }
  return copy;
}
