/**
 * Webhook signing keys: one ECDSA P-256 and one Ed25519 pair per platform environment, made on first
 * use. The private halves are sealed with AES-256-GCM under a key derived (HKDF-SHA256) from the data
 * key (store/data-key.ts: the one key SECRET_KEY seals), with the owner and algorithm as associated
 * data, so a sealed key copied to another row or another server does not open. Nothing here logs or
 * returns a private key in clear.
 */
import { createPrivateKey, generateKeyPairSync, hkdfSync, type KeyObject } from 'node:crypto';
import { type Ctx, type Scope, wallNowMs } from '../context.ts';
import { seal, unseal } from '../store/sealing.ts';
import type { SigningAlgorithm } from '../store/schema.ts';
import type { SigningKeys } from './signing.ts';

/** The AES key of the webhook signing keys, derived from the data key (never SECRET_KEY itself). */
export function sealingKey(dataKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', dataKey, Buffer.from('payouts'), Buffer.from('webhook-signing-keys/v1'), 32));
}

export { seal, unseal };

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
  const key = sealingKey(ctx.dataKey);
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
