// The first start of an embedded database makes the `default` sandbox platform exactly once, only after the
// port is bound, and hands its credentials over without putting the secret in a log: on the terminal when
// stdout is one, otherwise in a 0600 file under DATA_DIR whose path is printed. A server on PostgreSQL
// never makes one. A later start says where they went and how to make a new pair; the CLI's API commands
// read the file. Real processes, a real pseudo-terminal, real files.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, createTestDatabase, engine } from '../helpers/harness.ts';
import { after, describe, it } from '../helpers/node-test.ts';
import { runCli, runCliOk, spawnServer } from '../helpers/processes.ts';
import { waitFor } from '../helpers/wait.ts';

const CREDENTIALS_FILE = 'default-platform-credentials.txt';

function field(text: string, name: string): string | undefined {
  return new RegExp(`${name}:\\s+(\\S+)`).exec(text)?.[1];
}

/** The names of the platforms in a data folder (or their ids). */
async function platformsIn(dataDir: string, env: Record<string, string> = {}, ids = false): Promise<string[]> {
  const listed = await runCliOk(['platforms', 'list', '--json'], { ...process.env, DATA_DIR: dataDir, ...env });
  return (JSON.parse(listed.stdout) as Array<{ id: string; name: string }>).map((p) => (ids ? p.id : p.name));
}

describe('first start, embedded database', () => {
  const dirs: string[] = [];
  const freshDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'payouts-first-'));
    dirs.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('without a terminal: the credentials go to a 0600 file, stdout names it, no output holds the secret', async () => {
    const dataDir = freshDir();
    const env = { DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'info' };
    const first = await spawnServer(env);
    const file = join(dataDir, CREDENTIALS_FILE);
    try {
      await waitFor(() => first.stdout().includes(CREDENTIALS_FILE), 'the first start to name the credentials file');
      assert.match(first.stdout(), new RegExp(`credentials are in ${file.replaceAll('/', '\\/')}`), first.output());
      assert.equal(statSync(file).mode & 0o777, 0o600, 'only this user may read the credentials');
      const text = readFileSync(file, 'utf8');
      const tokenId = field(text, 'tokenId');
      const clientSecret = field(text, 'clientSecret');
      assert.ok(tokenId && clientSecret, text);
      assert.ok(
        !first.output().includes(clientSecret),
        `the secret is in no output and no log line:\n${first.output()}`,
      );
      const api = client(first.baseUrl, { tokenId, clientSecret });
      assert.equal((await api.get('/platform/internal-accounts')).status, 200, 'the credentials work');
    } finally {
      await first.stop();
    }
    const second = await spawnServer(env);
    try {
      const [platformId] = (await platformsIn(dataDir, { LOG_LEVEL: 'silent' }, true)) as [string];
      // A later start cannot show the secret again (only its hash is kept): it says where it is, and the fix.
      assert.ok(second.stdout().includes(`its sandbox credentials are in ${file}`), second.output());
      assert.ok(
        second.stdout().includes(`payouts tokens create --platform ${platformId} --env sandbox --name NAME`),
        second.output(),
      );
      assert.doesNotMatch(second.stdout(), /Created platform|clientSecret/, 'made and announced only once');
      // The commands that call the API find the file where the server wrote it: no flags, no variables.
      const noCredentials: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
      for (const name of ['SANDBOX_TOKEN_ID', 'SANDBOX_CLIENT_SECRET', 'SANDBOX_CREDENTIALS_FILE', 'PAYOUTS_URL'])
        delete noCredentials[name];
      const tail = await runCli(['logs', 'tail', '--no-follow', '--url', second.baseUrl], noCredentials);
      assert.equal(tail.code, 0, tail.stderr);
      // Another host never gets this machine's secret: the file is read for a local server only.
      const remote = await runCli(['logs', 'tail', '--no-follow', '--url', 'http://192.0.2.1:8080'], noCredentials);
      assert.equal(remote.code, 2, remote.stderr);
      assert.match(remote.stderr, /no credentials/);
    } finally {
      await second.stop();
    }
    assert.deepEqual(await platformsIn(dataDir), ['default'], 'one platform');
  });

  it('on a terminal: the credentials are shown there, and no file is written', async () => {
    const dataDir = freshDir();
    const server = await spawnServer({ DATA_DIR: dataDir, DATABASE_URL: '' }, undefined, { tty: true });
    try {
      await waitFor(() => field(server.stdout(), 'clientSecret') !== undefined, 'the credentials on the terminal');
      const tokenId = field(server.stdout(), 'tokenId');
      const clientSecret = field(server.stdout(), 'clientSecret');
      assert.ok(tokenId && clientSecret, server.output());
      const api = client(server.baseUrl, { tokenId, clientSecret });
      assert.equal((await api.get('/platform/internal-accounts')).status, 200, 'the credentials work');
      assert.throws(() => statSync(join(dataDir, CREDENTIALS_FILE)), /ENOENT/, 'no credentials file on a terminal');
    } finally {
      await server.stop();
    }
    const again = await spawnServer({ DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'info' });
    await waitFor(
      () => again.output().includes('payouts service ready'),
      'the later start to finish its first-start step',
    );
    await again.stop();
    assert.match(again.stdout(), /its sandbox credentials were shown at its first start\. A new pair: `payouts tokens/);
  });

  it('two servers starting at once on one empty data folder make one platform and announce it once', async () => {
    const dataDir = freshDir();
    const env = { DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'info' };
    const servers = await Promise.all([spawnServer(env), spawnServer(env)]);
    try {
      // Logged after the first-start step: both have made, or declined to make, the platform by then.
      await waitFor(
        () => servers.every((s) => s.output().includes('payouts service ready')),
        'both servers to finish their first-start step',
      );
      const announced = servers.filter((s) => s.stdout().includes('Created platform'));
      assert.equal(announced.length, 1, servers.map((s) => s.output()).join('\n---\n'));
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
    assert.deepEqual(await platformsIn(dataDir), ['default'], 'exactly one platform');
  });
});

describe('first start, PostgreSQL', { skip: engine !== 'postgres' && 'needs TEST_DATABASE_URL' }, () => {
  it('makes no platform when DATABASE_URL is set, and says how to make one', async () => {
    const database = await createTestDatabase();
    try {
      const server = await spawnServer(database.env);
      try {
        await waitFor(() => server.stdout().includes('No platform yet'), 'the hint to create a platform');
        assert.doesNotMatch(server.stdout(), /clientSecret|Created platform/, server.output());
      } finally {
        await server.stop();
      }
      assert.deepEqual(await platformsIn(database.env.DATA_DIR ?? '', database.env), [], 'no platform made');
    } finally {
      await database.drop();
    }
  });
});
