import { createHash, timingSafeEqual } from 'node:crypto';

/** A fixed-length digest, so comparing two never leaks a secret's length or a prefix. */
const digest = (value: string) => createHash('sha256').update(value).digest();

/** Whether a secret someone sent is the configured one (operator token, sandbox admin key), in constant time. */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}
