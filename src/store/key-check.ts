// A server key's check value: an HMAC of a fixed label under the key, so the database can say which keys
// it accepts without holding any of them. Before the data key (data-key.ts) the database kept one such
// value (the `secret_key_check` setting); now each seal of the data key carries the value of the key
// that made it.
import { createHmac } from 'node:crypto';

const LABEL = 'payouts server key check v1';

export function keyCheckValue(secretKey: Buffer): string {
  return createHmac('sha256', secretKey).update(LABEL).digest('hex');
}

/** What an operator may see of a key: the start of its check value, enough to tell two keys apart. */
export function keyFingerprint(keyCheck: string): string {
  return keyCheck.slice(0, 12);
}

/** The key does not open this database. */
export class KeyMismatchError extends Error {}
