// Envelope encryption of the server's secrets. Every secret at rest is peppered or sealed with one data
// key (API token hashes are HMACs under it; webhook signing keys are sealed under a key derived from it).
// The data key is stored in the database only sealed, under SECRET_KEY, in one row. Rotating SECRET_KEY
// therefore re-seals one value and touches no token: the plaintext client secrets are not stored, so
// their hashes could never be recomputed under another key.
//
// The row holds one seal per accepted SECRET_KEY, oldest first. Outside a rotation there is one; during a
// rotation there are two (old and new), so processes started with either key open the same data key and
// accept the same tokens. Every change to the row is a compare-and-set on its whole value.
import { hkdfSync, randomBytes } from 'node:crypto';
import type { Store } from './db.ts';
import { keyCheckValue, keyFingerprint, KeyMismatchError } from './key-check.ts';
import { seal, unseal } from './sealing.ts';
import { OperatorError } from '../domain/errors.ts';

const SETTING = 'data_key';
/** The check value a database kept before the data key existed (migration 008). */
const LEGACY_SETTING = 'secret_key_check';
/**
 * The legacy check of a database set up with a random data key: no key's check value, so an older
 * payouts (which peppers with SECRET_KEY itself and would refuse every token) refuses to start on it.
 */
const LEGACY_MARKER = 'none: this database keeps its data key in the data_key setting';
const ASSOCIATED_DATA = 'payouts data key v1';

export interface KeySeal {
  /** keyCheckValue of the SECRET_KEY that sealed it. */
  keyCheck: string;
  sealed: string;
  addedAt: number;
}

interface Stored {
  raw: string;
  seals: KeySeal[];
}

/** A rotation step the database's state does not allow; the message says what to do instead. */
export class KeyRotationError extends OperatorError {}

function wrappingKey(secretKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', secretKey, Buffer.from('payouts'), Buffer.from('data-key-seal/v1'), 32));
}

function sealWith(secretKey: Buffer, dataKey: Buffer, nowMs: number): KeySeal {
  return {
    keyCheck: keyCheckValue(secretKey),
    sealed: seal(wrappingKey(secretKey), dataKey, ASSOCIATED_DATA),
    addedAt: nowMs,
  };
}

function parseSeals(raw: string): KeySeal[] {
  const parsed = JSON.parse(raw) as { seals?: unknown };
  const seals = Array.isArray(parsed.seals) ? (parsed.seals as KeySeal[]) : [];
  const wellFormed = seals.every(
    (s) => typeof s.keyCheck === 'string' && typeof s.sealed === 'string' && typeof s.addedAt === 'number',
  );
  if (seals.length === 0 || !wellFormed) throw new Error(`the database's ${SETTING} setting is damaged`);
  return seals;
}

async function setting(store: Store, name: string): Promise<string | undefined> {
  const row = await store.db.selectFrom('server_settings').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value;
}

async function readStored(store: Store): Promise<Stored | undefined> {
  const raw = await setting(store, SETTING);
  return raw === undefined ? undefined : { raw, seals: parseSeals(raw) };
}

function mismatch(secretKey: Buffer, accepted: readonly string[]): KeyMismatchError {
  const listed = accepted.map(keyFingerprint).join(', ');
  return new KeyMismatchError(
    `SECRET_KEY (fingerprint ${keyFingerprint(keyCheckValue(secretKey))}) is not a key this database accepts ` +
      `(${listed}): every secret in it is sealed under those, so this process would refuse every credential; ` +
      'start it with the SECRET_KEY the other processes run with (during a key rotation, the old or the new one)',
  );
}

/** The data key, opened with secretKey; undefined when no seal is this key's (or the seal was altered). */
function openWith(seals: readonly KeySeal[], secretKey: Buffer): Buffer | undefined {
  const mine = seals.find((s) => s.keyCheck === keyCheckValue(secretKey));
  if (!mine) return undefined;
  try {
    return unseal(wrappingKey(secretKey), mine.sealed, ASSOCIATED_DATA);
  } catch {
    return undefined;
  }
}

async function holdsSecrets(store: Store): Promise<boolean> {
  const token = await store.db.selectFrom('api_tokens').select('id').limit(1).executeTakeFirst();
  const webhookKey = await store.db.selectFrom('webhook_keys').select('platform_id').limit(1).executeTakeFirst();
  return token !== undefined || webhookKey !== undefined;
}

/**
 * The first start under the data key. A database that already holds secrets keeps them valid: its data
 * key is the key material they were made with, SECRET_KEY itself (checked against the legacy check value
 * first). A new database gets a random data key. Race-safe: every process inserts its candidate with
 * ON CONFLICT DO NOTHING, and everyone then reads back the one that won.
 */
async function setUp(store: Store, secretKey: Buffer, nowMs: number): Promise<void> {
  const legacy = await setting(store, LEGACY_SETTING);
  if (legacy !== undefined && legacy !== keyCheckValue(secretKey)) {
    if (legacy === LEGACY_MARKER) throw new Error(`the database's ${SETTING} setting is missing`);
    throw mismatch(secretKey, [legacy]);
  }
  const existing = legacy !== undefined || (await holdsSecrets(store));
  const dataKey = existing ? secretKey : randomBytes(32);
  const value = JSON.stringify({ seals: [sealWith(secretKey, dataKey, nowMs)] });
  const insert = (name: string, text: string) =>
    store.db
      .insertInto('server_settings')
      .values({ name, value: text, created_at: BigInt(nowMs) })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
  await insert(SETTING, value);
  if (!existing) await insert(LEGACY_SETTING, LEGACY_MARKER);
}

/**
 * Opens the data key with this process's SECRET_KEY (setting it up on a database that has none), or
 * throws KeyMismatchError when SECRET_KEY is not one of the keys the database accepts.
 */
export async function openDataKey(store: Store, secretKey: Buffer, nowMs: number): Promise<Buffer> {
  let stored = await readStored(store);
  if (!stored) {
    await setUp(store, secretKey, nowMs);
    stored = await readStored(store);
    if (!stored) throw new Error(`the database's ${SETTING} setting could not be created`);
  }
  const dataKey = openWith(stored.seals, secretKey);
  if (!dataKey)
    throw mismatch(
      secretKey,
      stored.seals.map((s) => s.keyCheck),
    );
  return dataKey;
}

/** Replaces the seals, provided nobody changed them since `stored` was read. */
async function replaceSeals(store: Store, stored: Stored, seals: KeySeal[]): Promise<void> {
  const result = await store.db
    .updateTable('server_settings')
    .set({ value: JSON.stringify({ seals }) })
    .where('name', '=', SETTING)
    .where('value', '=', stored.raw)
    .executeTakeFirst();
  if (result.numUpdatedRows !== 1n)
    throw new KeyRotationError('the key seals changed while this command ran (another rotation?): run it again');
}

async function opened(store: Store, secretKey: Buffer): Promise<{ stored: Stored; dataKey: Buffer }> {
  const stored = await readStored(store);
  if (!stored) throw new Error(`the database's ${SETTING} setting is missing`);
  const dataKey = openWith(stored.seals, secretKey);
  if (!dataKey)
    throw mismatch(
      secretKey,
      stored.seals.map((s) => s.keyCheck),
    );
  return { stored, dataKey };
}

/**
 * Starts a rotation: seals the data key under newKey too, so that processes started with either key
 * work. Returns false when newKey was already added (running it again changes nothing).
 */
export async function addKey(store: Store, secretKey: Buffer, newKey: Buffer, nowMs: number): Promise<boolean> {
  const { stored, dataKey } = await opened(store, secretKey);
  const newCheck = keyCheckValue(newKey);
  if (newCheck === keyCheckValue(secretKey))
    throw new KeyRotationError('the new key is the key this command runs with (SECRET_KEY): make a new one');
  if (stored.seals.some((s) => s.keyCheck === newCheck)) return false;
  if (stored.seals.length > 1) {
    throw new KeyRotationError(
      'a rotation to another key is in progress: finish it (`payouts keys rotate --finish`, run with the new ' +
        'key) or abort it (`payouts keys rotate --abort`, run with the old key) before starting another',
    );
  }
  await replaceSeals(store, stored, [...stored.seals, sealWith(newKey, dataKey, nowMs)]);
  return true;
}

/**
 * Ends a rotation, keeping only the seal of the key this command runs with: `finish` must run with the
 * new key (the newest seal), `abort` with the old one. Returns how many seals were dropped (0: no
 * rotation was in progress).
 */
export async function keepOnlyKey(store: Store, secretKey: Buffer, end: 'finish' | 'abort'): Promise<number> {
  const { stored } = await opened(store, secretKey);
  if (stored.seals.length === 1) return 0;
  const mine = stored.seals.findIndex((s) => s.keyCheck === keyCheckValue(secretKey));
  const newest = mine === stored.seals.length - 1;
  if (end === 'finish' && !newest) {
    throw new KeyRotationError(
      '--finish keeps only the key it runs with, and this SECRET_KEY is the old one: run it with SECRET_KEY ' +
        'set to the new key (or run --abort to keep this key and drop the new one)',
    );
  }
  if (end === 'abort' && newest) {
    throw new KeyRotationError(
      '--abort keeps only the key it runs with, and this SECRET_KEY is the new one: run it with the old key ' +
        '(or run --finish to keep this key and drop the old one)',
    );
  }
  await replaceSeals(store, stored, stored.seals.slice(mine, mine + 1));
  return stored.seals.length - 1;
}

export interface AcceptedKey {
  fingerprint: string;
  addedAt: string;
  /** The key this process runs with. */
  current: boolean;
}

/** The keys the database accepts, oldest first. */
export async function acceptedKeys(store: Store, secretKey: Buffer): Promise<AcceptedKey[]> {
  const { stored } = await opened(store, secretKey);
  const mine = keyCheckValue(secretKey);
  return stored.seals.map((s) => ({
    fingerprint: keyFingerprint(s.keyCheck),
    addedAt: new Date(s.addedAt).toISOString(),
    current: s.keyCheck === mine,
  }));
}

/**
 * The check values of the keys a database file accepts, read with plain SQL (backup.ts works on a copy
 * with its own driver): the seals' when it has a data key, else its legacy check value, else none.
 */
export function acceptedKeyChecks(settings: { dataKey: string | undefined; legacy: string | undefined }): string[] {
  if (settings.dataKey !== undefined) return parseSeals(settings.dataKey).map((s) => s.keyCheck);
  return settings.legacy === undefined ? [] : [settings.legacy];
}

export const DATA_KEY_SETTINGS = { dataKey: SETTING, legacy: LEGACY_SETTING } as const;
