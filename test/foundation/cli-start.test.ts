// What a command loads before it runs: `payouts --help` or `payouts trigger` should not pay for the HTTP
// server, the database drivers and the validators, which only `serve` and the database commands use. Each
// case runs the command with a preload that records every module the process resolves
// (helpers/record-modules.mjs), and looks at the packages in that record: no timing, so a slow machine
// cannot fail it and a fast one cannot hide a regression.
import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, runCommand } from '../helpers/processes.ts';
import { tempDir } from '../helpers/temp-dirs.ts';

/** The packages every command is worse off loading unless it needs them. */
const SERVER = ['fastify', 'pino', 'prom-client', 'eta'];
const DATABASE = ['kysely', 'better-sqlite3', 'pg'];
const VALIDATION = ['ajv', '@sinclair/typebox'];

/** The npm packages a command resolved, by name. */
async function packagesLoadedBy(args: string[], env: NodeJS.ProcessEnv = {}) {
  const log = join(tempDir('modules'), 'modules');
  const result = await runCommand(
    process.execPath,
    ['--import', 'tsx', '--import', './test/helpers/record-modules.mjs', 'src/main.ts', ...args],
    { env: { ...process.env, LOG_LEVEL: 'silent', ...env, MODULE_LOG: log }, label: `payouts ${args.join(' ')}` },
  );
  const urls = readFileSync(log, 'utf8').split('\n');
  const names = urls.flatMap((url) => url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//)?.[1] ?? []);
  return { ...result, packages: new Set(names), urls };
}

const unexpected = (loaded: Set<string>, packages: string[]) => packages.filter((p) => loaded.has(p));

describe('what a command loads', () => {
  it('the usage and the version load the command table alone', async () => {
    for (const args of [['--version'], ['--help'], ['platforms', '--help'], ['trigger', '--help']]) {
      const run = await packagesLoadedBy(args);
      assert.equal(run.code, 0, `payouts ${args.join(' ')}: ${run.stderr}`);
      assert.deepEqual(unexpected(run.packages, [...SERVER, ...DATABASE, ...VALIDATION, 'undici']), [], args.join(' '));
    }
  });

  it('a usage error is found before anything heavy is loaded', async () => {
    const run = await packagesLoadedBy(['platforms', 'create', '--nmae', 'x']);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /unknown option '--nmae'/);
    assert.deepEqual(unexpected(run.packages, [...SERVER, ...DATABASE, ...VALIDATION]), []);
  });

  it('a command that talks to a running server loads no server and no database', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const run = await packagesLoadedBy([
      'trigger',
      'TEST',
      '--url',
      url,
      '--token-id',
      'Token:00000000-0000-4000-8000-000000000001',
      '--client-secret',
      'c'.repeat(32),
    ]);
    assert.equal(run.code, 1, 'nothing listens there');
    assert.match(run.stderr, /no server answers at/, run.stderr);
    assert.deepEqual(unexpected(run.packages, [...SERVER, ...DATABASE]), []);
  });

  it('a database command opens the database without the HTTP server', async () => {
    const dataDir = tempDir('start');
    const run = await packagesLoadedBy(['migrate'], { DATA_DIR: dataDir, DATABASE_URL: '' });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.packages.has('better-sqlite3'), 'it did open the embedded database');
    assert.deepEqual(unexpected(run.packages, ['fastify', 'eta']), []);
  });
});
