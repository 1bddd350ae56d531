/**
 * Webhook signing keys: one ECDSA P-256 and one Ed25519 pair per platform environment, made on first
 * use. The private halves are sealed with AES-256-GCM under a key derived (HKDF-SHA256) from the server
 * key, with the owner and algorithm as associated data, so a sealed key copied to another row or
 * another server does not open. Nothing here logs or returns a private key in clear.
 */
import {
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { type Ctx, type Scope, wallNowMs } from '../context.ts';
import type { SigningAlgorithm } from '../store/schema.ts';
import type { SigningKeys } from './signing.ts';

const SEAL_VERSION = 'v1';

export function sealingKey(secretKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', secretKey, Buffer.from('payouts'), Buffer.from('webhook-signing-keys/v1'), 32));
}

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

/** Throws when the value was altered, sealed for another owner, or sealed under another server key. */
export function unseal(key: Buffer, sealed: string, associatedData: string): Buffer {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== SEAL_VERSION || !iv || !tag || ciphertext === undefined)
    throw new Error('sealed key has an unknown format');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  decipher.setAAD(Buffer.from(associatedData));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64')), decipher.final()]);
}

function ownerOf(scope: Scope, algorithm: SigningAlgorithm): string {
  return `${scope.platformId}|${scope.environment}|${algorithm}`;
}

function generate(algorithm: SigningAlgorithm): { publicPem: string; privateDer: Buffer } {
  const pair =
    algorithm === 'ECDSA_P256'
      ? generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
      : generateKeyPairSync('ed25519');
  return {
    publicPem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateDer: pair.privateKey.export({ type: 'pkcs8', format: 'der' }),
  };
}

interface KeyHalf {
  publicPem: string;
  privateKey: KeyObject;
}

/**
 * Loads (or creates) a scope's signing keys. Keys never change once made, so each process keeps the
 * opened keys in memory. Creation is race-safe across processes: each inserts its candidate with
 * ON CONFLICT DO NOTHING and then everyone reads back the one row that won.
 */
export function makeKeyStore(ctx: Ctx) {
  const key = sealingKey(ctx.config.secretKey);
  const cache = new Map<string, Promise<SigningKeys>>();

  async function half(scope: Scope, algorithm: SigningAlgorithm): Promise<KeyHalf> {
    const owner = ownerOf(scope, algorithm);
    const find = () =>
      ctx.store.db
        .selectFrom('webhook_keys')
        .select(['public_key', 'sealed_private_key'])
        .where('platform_id', '=', scope.platformId)
        .where('environment', '=', scope.environment)
        .where('algorithm', '=', algorithm)
        .executeTakeFirst();
    let row = await find();
    if (!row) {
      const fresh = generate(algorithm);
      await ctx.store.db
        .insertInto('webhook_keys')
        .values({
          platform_id: scope.platformId,
          environment: scope.environment,
          algorithm,
          public_key: fresh.publicPem,
          sealed_private_key: seal(key, fresh.privateDer, owner),
          created_at: BigInt(wallNowMs(ctx)),
        })
        .onConflict((oc) => oc.columns(['platform_id', 'environment', 'algorithm']).doNothing())
        .execute();
      row = await find();
      if (!row) throw new Error(`webhook key ${owner} could not be created`);
    }
    const der = unseal(key, row.sealed_private_key, owner);
    return { publicPem: row.public_key, privateKey: createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }) };
  }

  async function load(scope: Scope): Promise<SigningKeys> {
    const [ecdsa, ed25519] = [await half(scope, 'ECDSA_P256'), await half(scope, 'ED25519')];
    return {
      ecdsaPrivateKey: ecdsa.privateKey,
      ecdsaPublicKeyPem: ecdsa.publicPem,
      ed25519PrivateKey: ed25519.privateKey,
      ed25519PublicKeyPem: ed25519.publicPem,
    };
  }

  return {
    keysOf(scope: Scope): Promise<SigningKeys> {
      const id = `${scope.platformId}|${scope.environment}`;
      let found = cache.get(id);
      if (!found) {
        found = load(scope);
        cache.set(id, found);
        // A failed load (database down) is not remembered: the next call tries again.
        found.catch(() => cache.delete(id));
      }
      return found;
    },
  };
}

export type KeyStore = ReturnType<typeof makeKeyStore>;
