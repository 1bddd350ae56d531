// Preset credentials: a CI job hard-codes SANDBOX_TOKEN_ID and SANDBOX_CLIENT_SECRET (or a credentials
// file) and the embedded sandbox accepts exactly those from its first request, across restarts. Refused
// next to DATABASE_URL and for a malformed value, before anything starts. Real processes, real HTTP.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client } from '../helpers/harness.ts';
import { after, describe, it } from '../helpers/node-test.ts';
import { runCli, spawnServer } from '../helpers/processes.ts';

const TOKEN_ID = 'Token:00000000-0000-4000-8000-00000000c1c1';
const SECRET = 'ci-sandbox-secret-0123456789abcdef';

describe('preset sandbox credentials', () => {
  const dirs: string[] = [];
  const freshDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'payouts-preset-'));
    dirs.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const embedded = (dataDir: string) => ({ DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'info' });

  it('are accepted from the first request, and nothing secret is written or printed', async () => {
    const dataDir = freshDir();
    const server = await spawnServer({
      ...embedded(dataDir),
      SANDBOX_TOKEN_ID: TOKEN_ID,
      SANDBOX_CLIENT_SECRET: SECRET,
    });
    try {
      const first = await client(server.baseUrl, { tokenId: TOKEN_ID, clientSecret: SECRET }).get('/customers');
      assert.equal(first.status, 200, `the first request with the preset credentials: ${JSON.stringify(first.body)}`);
      const byClientId = client(server.baseUrl, { tokenId: TOKEN_ID.slice('Token:'.length), clientSecret: SECRET });
      assert.equal((await byClientId.get('/customers')).status, 200, 'the client id (no prefix) works as well');
      const wrong = client(server.baseUrl, { tokenId: TOKEN_ID, clientSecret: `${SECRET}x` });
      assert.equal((await wrong.get('/customers')).status, 401, 'another secret is refused');
      assert.match(server.stdout(), /accepts the preset credentials/, server.output());
      assert.ok(!server.output().includes(SECRET), `the secret is in no output:\n${server.output()}`);
      assert.ok(!existsSync(join(dataDir, 'default-platform-credentials.txt')), 'no random credentials file');
    } finally {
      await server.stop();
    }
  });

  it('survive a restart, and a new secret for the same token replaces the old one', async () => {
    const dataDir = freshDir();
    const preset = { ...embedded(dataDir), SANDBOX_TOKEN_ID: TOKEN_ID, SANDBOX_CLIENT_SECRET: SECRET };
    await (await spawnServer(preset)).stop();
    const again = await spawnServer(preset);
    try {
      const api = client(again.baseUrl, { tokenId: TOKEN_ID, clientSecret: SECRET });
      assert.equal((await api.get('/customers')).status, 200, 'the same credentials after a restart');
    } finally {
      await again.stop();
    }
    const rotated = `${SECRET}-rotated`;
    const third = await spawnServer({ ...preset, SANDBOX_CLIENT_SECRET: rotated });
    try {
      const fresh = client(third.baseUrl, { tokenId: TOKEN_ID, clientSecret: rotated });
      assert.equal((await fresh.get('/customers')).status, 200, 'the new secret works');
      const old = client(third.baseUrl, { tokenId: TOKEN_ID, clientSecret: SECRET });
      assert.equal((await old.get('/customers')).status, 401, 'the old secret no longer does');
    } finally {
      await third.stop();
    }
  });

  it('come from SANDBOX_CREDENTIALS_FILE too (the shape `platforms create --json` prints)', async () => {
    const dataDir = freshDir();
    const file = join(dataDir, 'ci-credentials.json');
    writeFileSync(file, JSON.stringify({ sandbox: { tokenId: TOKEN_ID, clientSecret: SECRET } }));
    const server = await spawnServer({ ...embedded(dataDir), SANDBOX_CREDENTIALS_FILE: file });
    try {
      const api = client(server.baseUrl, { tokenId: TOKEN_ID, clientSecret: SECRET });
      assert.equal((await api.get('/customers')).status, 200, 'the file credentials work');
    } finally {
      await server.stop();
    }
  });

  const refused: Array<[string, Record<string, string>, RegExp]> = [
    [
      'next to DATABASE_URL (production mode)',
      {
        DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/none',
        SECRET_KEY: 'ab'.repeat(32),
        SANDBOX_TOKEN_ID: TOKEN_ID,
        SANDBOX_CLIENT_SECRET: SECRET,
      },
      /preset sandbox credentials .* are for the embedded sandbox only, and DATABASE_URL is set/,
    ],
    [
      'a token id that is no UUID',
      { SANDBOX_TOKEN_ID: 'Token:abc', SANDBOX_CLIENT_SECRET: SECRET },
      /SANDBOX_TOKEN_ID="Token:abc" is not valid/,
    ],
    [
      'a short secret, without showing it',
      { SANDBOX_TOKEN_ID: TOKEN_ID, SANDBOX_CLIENT_SECRET: 'short' },
      /SANDBOX_CLIENT_SECRET=\(value hidden\) is not valid/,
    ],
    [
      'a secret with a colon',
      { SANDBOX_TOKEN_ID: TOKEN_ID, SANDBOX_CLIENT_SECRET: `${SECRET}:x` },
      /SANDBOX_CLIENT_SECRET=/,
    ],
    ['one of the two alone', { SANDBOX_TOKEN_ID: TOKEN_ID }, /SANDBOX_CLIENT_SECRET is not set/],
  ];
  for (const [what, env, message] of refused) {
    it(`are refused ${what}: exit 2 naming the variable`, async () => {
      const dataDir = freshDir();
      const result = await runCli(['serve'], {
        ...process.env,
        DATA_DIR: dataDir,
        DATABASE_URL: '',
        PORT: '0',
        ...env,
      });
      assert.equal(result.code, 2, `exit code 2, got ${result.code}\n${result.stderr}`);
      assert.match(result.stderr, message, 'the one line names the problem');
    });
  }
});
