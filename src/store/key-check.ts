// The server key's check value. Every secret at rest is peppered or sealed with SECRET_KEY, so a process
// with another key would start, answer /readyz, and then refuse every valid credential. The database keeps
// an HMAC of a fixed label under the key it was set up with; a process whose key gives another value
// refuses to start.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Store } from './db.ts';

const SETTING = 'secret_key_check';
const LABEL = 'payouts server key check v1';

export function keyCheckValue(secretKey: Buffer): string {
  return createHmac('sha256', secretKey).update(LABEL).digest('hex');
}

/** The key does not match the database's. */
export class KeyMismatchError extends Error {}

/**
 * Records the key's check value on first use (exactly once, whatever runs at the same time), and
 * throws KeyMismatchError when the database was set up with another key.
 */
export async function checkServerKey(store: Store, secretKey: Buffer, nowMs: number): Promise<void> {
  const mine = keyCheckValue(secretKey);
  await store.db
    .insertInto('server_settings')
    .values({ name: SETTING, value: mine, created_at: BigInt(nowMs) })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const stored = await store.db
    .selectFrom('server_settings')
    .select('value')
    .where('name', '=', SETTING)
    .executeTakeFirstOrThrow();
  const same = stored.value.length === mine.length && timingSafeEqual(Buffer.from(stored.value), Buffer.from(mine));
  if (!same) {
    throw new KeyMismatchError(
      'SECRET_KEY is not the key this database was set up with: every secret in it was sealed with that key, ' +
        'so this process would refuse every credential; start it with the same SECRET_KEY as the others',
    );
  }
}
