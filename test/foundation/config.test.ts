import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { after, describe, it } from '../helpers/node-test.ts';
import { runCli } from '../helpers/processes.ts';
import { createTestDatabase, startServer } from '../helpers/harness.ts';

describe('configuration', () => {
  const dir = mkdtempSync(join(tmpdir(), 'payouts-config-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const base = { DATA_DIR: dir };
  const aFile = join(dir, 'not-a-folder');
  writeFileSync(aFile, 'x');
  const hexKey = 'ab'.repeat(32);

  // What an operator actually typed, and the variable the one-line answer must name.
  const bad: Array<[string, Record<string, string>, RegExp]> = [
    [
      'a boolean spelled FALSE',
      { RUN_WORKERS: 'FALSE' },
      /^RUN_WORKERS="FALSE" is not valid; set it to `true` or `false`$/,
    ],
    ['a boolean spelled no', { RUN_WORKERS: 'no' }, /^RUN_WORKERS="no"/],
    ['a boolean spelled 0', { RUN_WORKERS: '0' }, /^RUN_WORKERS="0"/],
    ['yes for a switch', { ALLOW_PRIVATE_WEBHOOK_URLS: 'yes' }, /^ALLOW_PRIVATE_WEBHOOK_URLS="yes"/],
    ['a relative public URL', { PUBLIC_URL: 'notaurl' }, /^PUBLIC_URL="notaurl" is not valid; set it to the absolute/],
    ['a public URL of another scheme', { PUBLIC_URL: 'ftp://x.example' }, /^PUBLIC_URL=/],
    ['a key that is not base64', { SECRET_KEY: '!'.repeat(64) }, /^SECRET_KEY=\(value hidden\) is not valid/],
    ['a key too short', { SECRET_KEY: 'ab'.repeat(16) }, /^SECRET_KEY=\(value hidden\) is not valid/],
    [
      'an unknown log level',
      { LOG_LEVEL: 'verbose' },
      /^LOG_LEVEL="verbose" is not valid; set it to one of fatal, error/,
    ],
    ['a host that is no host name', { HOST: 'not a host' }, /^HOST="not a host" is not valid/],
    ['a port that is a word', { PORT: 'eighty' }, /^PORT="eighty" is not a whole number; set it to a port number/],
    ['a port out of range', { PORT: '70000' }, /^PORT="70000" is not valid/],
    [
      'a failed job kept no time at all',
      { FAILED_JOB_TTL_HOURS: '0' },
      /^FAILED_JOB_TTL_HOURS="0" is not valid; set it to a number of hours from 1 to 8760$/,
    ],
    ['a data folder that is a file', { DATA_DIR: aFile }, /^DATA_DIR=".*not-a-folder" is a file, not a folder/],
    ['a database URL of another kind', { DATABASE_URL: 'mysql://x' }, /^DATABASE_URL=\(value hidden\) is not valid/],
    [
      'a shared database without a key',
      { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x' },
      /^SECRET_KEY is not set, and DATABASE_URL is/,
    ],
  ];
  for (const [what, env, message] of bad) {
    it(`refuses ${what}, naming the variable, the problem and the fix`, () => {
      assert.throws(
        () => loadConfig({ ...base, ...env }),
        (err: unknown) => err instanceof ConfigError && message.test(err.message) && !err.message.includes('\n'),
      );
    });
  }

  it('reads good values, and treats empty as unset', () => {
    const config = loadConfig({
      ...base,
      RUN_WORKERS: 'false',
      ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
      PUBLIC_URL: 'https://payouts.example.com/',
      SECRET_KEY: hexKey,
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: '0',
      JOB_POLL_MS: '',
      FAILED_JOB_TTL_HOURS: '',
    });
    assert.equal(config.runWorkers, false);
    assert.equal(config.allowPrivateWebhookUrls, true);
    assert.equal(config.publicUrl, 'https://payouts.example.com');
    assert.equal(config.secretKey.toString('hex'), hexKey);
    assert.equal(config.jobPollMs, 250);
    assert.equal(config.failedJobTtlHours, 168, 'failed jobs are kept a week unless told otherwise');
    assert.equal(loadConfig({ ...base, FAILED_JOB_TTL_HOURS: '2' }).failedJobTtlHours, 2, 'or as told');
    assert.equal(loadConfig({ ...base, SECRET_KEY: Buffer.alloc(32, 7).toString('base64') }).secretKey.length, 32);
    assert.equal(loadConfig({ ...base, HOST: '::1' }).host, '::1');
  });

  it('stops the command line with exit code 2 and one line, no stack trace', async () => {
    const result = await runCli(['migrate'], { ...process.env, DATA_DIR: dir, DATABASE_URL: '', RUN_WORKERS: 'FALSE' });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /^payouts: RUN_WORKERS="FALSE" is not valid; set it to `true` or `false`\n/);
    assert.doesNotMatch(result.stderr, /\bat .*\.ts:\d+/, 'no stack trace');
  });

  it("a DATA_DIR that cannot be made is one line, even where Node's recursive mkdir would hang", async () => {
    // Under /proc the kernel answers ENOENT for a folder whose parent exists; Node's recursive mkdir retried
    // that forever, and `serve` hung with no output. Bounded here by the command's time-out.
    for (const dataDir of ['/proc/nope', '/proc/nope/deeper/still']) {
      const result = await runCli(
        ['serve'],
        { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', PORT: '0' },
        20_000,
      );
      assert.equal(result.code, 2, `${dataDir}: ${result.stderr}`);
      assert.match(result.stderr, /^payouts: DATA_DIR="\/proc\/nope[^"]*" cannot be created \(ENOENT\)/, dataDir);
      assert.equal(result.stderr.trim().split('\n').length, 1, `${dataDir}: one line`);
    }
  });
});

describe('one server key per database', () => {
  it('a process started with another SECRET_KEY refuses to start and says so; the right key still starts', async () => {
    const database = await createTestDatabase();
    try {
      const first = await startServer({}, { database });
      await first.close();
      await assert.rejects(
        startServer({ SECRET_KEY: 'cd'.repeat(32) }, { database }),
        (err: unknown) =>
          err instanceof ConfigError &&
          /^SECRET_KEY \(fingerprint [0-9a-f]{12}\) is not a key this database accepts/.test(err.message),
      );
      const again = await startServer({}, { database });
      await again.close();
    } finally {
      await database.drop();
    }
  });
});
