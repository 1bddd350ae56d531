// Authenticated encryption of a secret at rest: AES-256-GCM with a fresh 96-bit nonce per value, and
// associated data naming what the value is for, so a sealed value copied to another row does not open.
// Used for the webhook signing keys (under the data key) and for the data key itself (under SECRET_KEY).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const SEAL_VERSION = 'v1';

export function seal(key: Buffer, plaintext: Buffer, associatedData: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associatedData));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return [
    SEAL_VERSION,
    iv.toString('base64'),
    cipher.getAuthTag().toString('base64'),
    ciphertext.toString('base64'),
  ].join('.');
}

/** Throws when the value was altered, sealed for another owner, or sealed under another key. */
export function unseal(key: Buffer, sealed: string, associatedData: string): Buffer {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== SEAL_VERSION || !iv || !tag || ciphertext === undefined)
    throw new Error('sealed value has an unknown format');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  decipher.setAAD(Buffer.from(associatedData));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64')), decipher.final()]);
}
