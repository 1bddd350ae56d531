// Rotating SECRET_KEY with real processes on a real database, on both engines: tokens made before the
// rotation authenticate after it, with servers on the old and on the new key at once during it; webhook
// deliveries verify with the same public keys throughout; after --finish the old key no longer starts
// a process. Also: a database from before the data key keeps its tokens and webhook keys, and bad
// arguments are usage errors.
import assert from 'node:assert/strict';
import { createPublicKey, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeLogger } from '../../src/logger.ts';
import { loadConfig } from '../../src/config.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { makeServices } from '../../src/services/index.ts';
import { createPlatform } from '../../src/services/platforms.ts';
import { openStore } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { keyCheckValue } from '../../src/store/key-check.ts';
import { makeKeyStore } from '../../src/webhooks/keys.ts';
import { client, createTestDatabase, engine, type TestDatabase } from '../helpers/harness.ts';
import { after, before, describe, it } from '../helpers/node-test.ts';
import { runCli, runCliOk, spawnServer, type ServerProcess } from '../helpers/processes.ts';
import { loadDocsVerifier, startReceiver, type Receiver, type VerifyWebhook } from '../webhooks/helpers.ts';
import { tempDir } from '../helpers/temp-dirs.ts';

type Credentials = { tokenId: string; clientSecret: string };
type PublicKeys = { webhookPublicKey: string; webhookStandardPublicKey: string };

const newKey = () => randomBytes(32).toString('hex');

/**
 * These tests run processes one after another (the first about twenty-five), each bounded by
 * PROCESS_TIMEOUT_MS: about 30 s on a quiet 2-core machine, but a process started through tsx takes 10 to
 * 15 s there while other test files load it, over the default per-test bound.
 */
const SCENARIO = { timeout: 8 * 60_000 };

describe(`rotating SECRET_KEY (${engine})`, () => {
  let database: TestDatabase;
  let receiver: Receiver;
  let verify: VerifyWebhook;
  const folder = tempDir('keys');
  const envWith = (key: string): NodeJS.ProcessEnv => ({
    ...process.env,
    ...database.env,
    SECRET_KEY: key,
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
    LOG_LEVEL: 'silent',
    PORT: '0',
  });
  const serverOn = (key: string) => spawnServer(envWith(key) as Record<string, string>);
  const keyFile = (key: string) => {
    const file = join(folder, `${randomBytes(4).toString('hex')}.key`);
    writeFileSync(file, `${key}\n`, { mode: 0o600 });
    return file;
  };

  /** The token authenticates on this server, its public keys are `keys`, and its test webhook verifies. */
  async function assertWorks(server: ServerProcess, creds: Credentials, keys: PublicKeys, label: string) {
    const api = client(server.baseUrl, creds);
    assert.equal((await api.get('/customers')).status, 200, `${label}: the token authenticates`);
    const config = (await api.get('/config')).body;
    assert.equal(config.webhookPublicKey, keys.webhookPublicKey, `${label}: the same ECDSA public key`);
    assert.equal(config.webhookStandardPublicKey, keys.webhookStandardPublicKey, `${label}: the same Ed25519 key`);
    const sent = await api.post('/webhooks/test', { url: receiver.url });
    assert.equal(sent.status, 200, `${label}: test webhook sent: ${JSON.stringify(sent.body)}`);
    const got = receiver.received.at(-1);
    assert.ok(got && verify(got.raw, got.headers, keys), `${label}: the delivery verifies with the same public keys`);
  }

  /** `payouts serve` with this key exits at once with a usage-class code and one line naming the key. */
  async function assertRefusesToStart(key: string, label: string) {
    const refused = await runCli(['serve'], envWith(key), 30_000);
    assert.equal(refused.code, 2, `${label}: exit code 2; stderr: ${refused.stderr}`);
    const lines = refused.stderr.trim().split('\n');
    assert.equal(lines.length, 1, `${label}: one line: ${refused.stderr}`);
    assert.match(lines[0] ?? '', /SECRET_KEY \(fingerprint [0-9a-f]{12}\) is not a key this database accepts/, label);
  }

  before(async () => {
    database = await createTestDatabase();
    receiver = await startReceiver();
    verify = await loadDocsVerifier();
  });
  after(async () => {
    await receiver.close();
    await database.drop();
  });

  let current = '';
  let creds: Credentials;
  let keys: PublicKeys;

  it(
    'a token and webhook keys from before the rotation work on servers with the old and the new key',
    SCENARIO,
    async () => {
      const old = database.env.SECRET_KEY ?? '';
      const next = newKey();
      const onOld = await serverOn(old);
      const platform = JSON.parse(
        (await runCliOk(['platforms', 'create', '--name', 'rot', '--json'], envWith(old))).stdout,
      );
      creds = platform.sandbox as Credentials;
      keys = (await client(onOld.baseUrl, creds).get('/config')).body as PublicKeys;
      await assertWorks(onOld, creds, keys, 'before the rotation');

      // A key that is neither refuses at once, before and during the rotation.
      await assertRefusesToStart(newKey(), 'an unknown key');

      const started = await runCliOk(['keys', 'rotate', '--new-key-file', keyFile(next)], envWith(old));
      assert.match(started.stdout, /^added: the database accepts the old key/, started.stdout);
      const again = await runCliOk(['keys', 'rotate', '--new-key-file', keyFile(next)], envWith(old));
      assert.match(again.stdout, /^already added/, 'the same new key twice changes nothing');
      const status = JSON.parse((await runCliOk(['keys', 'status', '--json'], envWith(next))).stdout);
      assert.equal(status.rotating, true, 'status: a rotation is in progress');
      assert.deepEqual(
        status.keys.map((k: { current: boolean }) => k.current),
        [false, true],
        'status: the old key, then the new one (this process)',
      );

      // PostgreSQL: the old-key server keeps running next to a new-key server. SQLite: one after the other.
      if (engine === 'sqlite') await onOld.stop();
      const during = await serverOn(next);
      await assertWorks(during, creds, keys, 'a server on the new key, during the rotation');
      // A token made on the new key works on the old-key server too: both hold the same data key.
      const made = JSON.parse(
        (
          await runCliOk(
            ['tokens', 'create', '--platform', platform.platformId, '--env', 'sandbox', '--name', 'new', '--json'],
            envWith(next),
          )
        ).stdout,
      ) as { id: string; clientSecret: string };
      if (engine === 'postgres') {
        await assertWorks(onOld, creds, keys, 'the server on the old key, during the rotation');
        const api = client(onOld.baseUrl, { tokenId: made.id, clientSecret: made.clientSecret });
        assert.equal((await api.get('/customers')).status, 200, 'a token made with the new key works on the old');
      }

      const wrongFinish = await runCli(['keys', 'rotate', '--finish'], envWith(old));
      assert.equal(wrongFinish.code, 1, `--finish with the old key is refused: ${wrongFinish.stderr}`);
      assert.match(wrongFinish.stderr, /run it with SECRET_KEY set to the new key/, wrongFinish.stderr);
      const finished = await runCliOk(['keys', 'rotate', '--finish'], envWith(next));
      assert.match(finished.stdout, /^finished: the database accepts only this key/, finished.stdout);

      // A process on the old key that is still running keeps working: it holds the data key already.
      if (engine === 'postgres') {
        await assertWorks(onOld, creds, keys, 'the old-key server still running after --finish');
        await onOld.stop();
      }
      await assertRefusesToStart(old, 'the old key after --finish');
      const oldCli = await runCli(['platforms', 'list'], envWith(old));
      assert.equal(oldCli.code, 2, `a command on the old key is refused too: ${oldCli.stderr}`);
      await during.stop();
      const afterwards = await serverOn(next);
      await assertWorks(afterwards, creds, keys, 'a server on the new key, restarted after --finish');
      await afterwards.stop();
      current = next;
    },
  );

  it('one rotation at a time; --abort keeps the old key; NEW_SECRET_KEY starts one too', SCENARIO, async () => {
    const [second, third] = [newKey(), newKey()];
    await runCliOk(['keys', 'rotate'], { ...envWith(current), NEW_SECRET_KEY: second });
    if (engine === 'sqlite') {
      // A backup taken during the rotation restores with either key.
      const archive = join(folder, 'during.tar.gz');
      await runCliOk(['backup', archive], envWith(current));
      for (const key of [current, second]) {
        const elsewhere = tempDir('keys-restore');
        await runCliOk(['restore', archive], { ...envWith(key), DATA_DIR: elsewhere });
        const status = JSON.parse(
          (await runCliOk(['keys', 'status', '--json'], { ...envWith(key), DATA_DIR: elsewhere })).stdout,
        );
        assert.equal(status.keys.length, 2, 'the restored database is mid-rotation too');
      }
    }
    const another = await runCli(['keys', 'rotate', '--new-key-file', keyFile(third)], envWith(current));
    assert.equal(another.code, 1, `a second rotation is refused while one is in progress: ${another.stderr}`);
    assert.match(another.stderr, /a rotation to another key is in progress/, another.stderr);
    const wrongAbort = await runCli(['keys', 'rotate', '--abort'], envWith(second));
    assert.equal(wrongAbort.code, 1, `--abort with the new key is refused: ${wrongAbort.stderr}`);
    const aborted = await runCliOk(['keys', 'rotate', '--abort'], envWith(current));
    assert.match(aborted.stdout, /^aborted/, aborted.stdout);
    await assertRefusesToStart(second, 'the aborted key');
    const nothing = await runCliOk(['keys', 'rotate', '--finish'], envWith(current));
    assert.match(nothing.stdout, /^no rotation in progress/, nothing.stdout);
    const server = await serverOn(current);
    await assertWorks(server, creds, keys, 'after an aborted rotation');
    await server.stop();
  });

  it('bad arguments exit 2 with one line, and change nothing', SCENARIO, async () => {
    const env = envWith(current);
    const short = keyFile(randomBytes(16).toString('hex'));
    const cases = [
      ['keys', 'rotate'],
      ['keys', 'rotate', '--new-key-file', join(folder, 'missing.key')],
      ['keys', 'rotate', '--new-key-file', short],
      ['keys', 'rotate', '--new-key-file', keyFile('not a key at all')],
      ['keys', 'rotate', '--finish', '--abort'],
      ['keys', 'rotate', '--finish', '--new-key-file', keyFile(newKey())],
      ['keys', 'rotate', '--bogus'],
      ['keys', 'rotate', 'extra'],
      ['keys', 'frobnicate'],
    ];
    for (const args of cases) {
      const result = await runCli(args, env);
      assert.equal(result.code, 2, `payouts ${args.join(' ')}: exit 2; stderr: ${result.stderr}`);
      // One line that says what is wrong (after the database's, where the command got that far), not a usage
      // dump that scrolls it away.
      const lines = result.stderr.split('\n').filter((line) => line && !line.startsWith('payouts: database: '));
      assert.equal(lines.length, 1, `payouts ${args.join(' ')}: one line\n${result.stderr}`);
      assert.match(lines[0] ?? '', /^payouts: /, `payouts ${args.join(' ')}`);
    }
    const same = await runCli(['keys', 'rotate', '--new-key-file', keyFile(current)], env);
    assert.equal(same.code, 1, `rotating to the key in use is refused: ${same.stderr}`);
    const status = JSON.parse((await runCliOk(['keys', 'status', '--json'], env)).stdout);
    assert.equal(status.keys.length, 1, 'still one key');
  });
});

describe(`a database from before the data key (${engine})`, () => {
  it('keeps its tokens and webhook signing keys, and can then be rotated', SCENARIO, async () => {
    const database = await createTestDatabase();
    try {
      // What an older payouts left: token hashes and webhook keys made with SECRET_KEY itself, and the
      // key's check value. Made here with the services of today given SECRET_KEY as their key.
      const config = loadConfig(database.env);
      const store = openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
      let creds: Credentials;
      let keysBefore: { ecdsa: string; ed25519: string };
      try {
        await migrate(store);
        const ctx = { store, clock: systemClock, config, dataKey: config.secretKey };
        makeServices(ctx, makeLogger(config));
        const created = await createPlatform(ctx, 'legacy');
        creds = created.sandbox;
        const signing = await makeKeyStore(ctx).keysOf({ platformId: created.platformId, environment: 'sandbox' });
        keysBefore = { ecdsa: signing.ecdsaPublicKeyPem, ed25519: signing.ed25519PublicKeyPem };
        await store.db
          .insertInto('server_settings')
          .values({ name: 'secret_key_check', value: keyCheckValue(config.secretKey), created_at: 0n })
          .execute();
      } finally {
        await store.close();
      }
      const env = { ...process.env, ...database.env, LOG_LEVEL: 'silent', ALLOW_PRIVATE_WEBHOOK_URLS: 'true' };
      const refused = await runCli(['platforms', 'list'], { ...env, SECRET_KEY: newKey() });
      assert.equal(refused.code, 2, `another key is refused before the first start: ${refused.stderr}`);

      const server = await spawnServer(env as Record<string, string>);
      const api = client(server.baseUrl, creds);
      assert.equal((await api.get('/customers')).status, 200, 'the old token authenticates');
      const served = (await api.get('/config')).body as PublicKeys;
      assert.equal(served.webhookPublicKey, keysBefore.ecdsa, 'the same ECDSA key');
      const raw = createPublicKey(keysBefore.ed25519).export({ format: 'der', type: 'spki' }).subarray(-32);
      assert.equal(served.webhookStandardPublicKey, `whpk_${raw.toString('base64')}`, 'the same Ed25519 key');
      const receiver = await startReceiver();
      try {
        assert.equal((await api.post('/webhooks/test', { url: receiver.url })).status, 200, 'test webhook sent');
        const got = receiver.received.at(-1);
        const verify = await loadDocsVerifier();
        assert.ok(got && verify(got.raw, got.headers, served), 'signed with the private keys sealed before');
      } finally {
        await receiver.close();
      }
      await server.stop();

      const next = newKey();
      await runCliOk(['keys', 'rotate'], { ...env, NEW_SECRET_KEY: next });
      await runCliOk(['keys', 'rotate', '--finish'], { ...env, SECRET_KEY: next });
      const rotated = await spawnServer({ ...(env as Record<string, string>), SECRET_KEY: next });
      assert.equal((await client(rotated.baseUrl, creds).get('/customers')).status, 200, 'after a rotation too');
      await rotated.stop();
    } finally {
      await database.drop();
    }
  });
});

describe('the server key reaches secrets only through the data key', () => {
  it('no code outside config, the services opener, the store and the key commands reads config.secretKey', () => {
    // testing/sandbox.ts only hands a caller's SECRET_KEY on to the server it starts (startSandbox's option).
    const allowed = new Set([
      'config.ts',
      'open-services.ts',
      'cli/commands/keys.ts',
      'cli/commands/backup.ts',
      'testing/sandbox.ts',
    ]);
    const root = join(import.meta.dirname, '..', '..', 'src');
    const offenders = (readdirSync(root, { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts') && !allowed.has(f) && !f.startsWith('store/'))
      .filter((f) => /\bsecretKey\b/.test(readFileSync(join(root, f), 'utf8')));
    assert.deepEqual(offenders, [], 'use ctx.dataKey (store/data-key.ts) to pepper or seal a secret, never SECRET_KEY');
  });
});
