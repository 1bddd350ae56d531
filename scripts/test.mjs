#!/usr/bin/env node
// Runs the whole suite on the embedded SQLite database, then again on PostgreSQL when TEST_DATABASE_URL
// names a server (each test file creates and drops a database of its own there), and prints each run's
// wall time.
//
// `--fast` (npm run test:fast) leaves out the process-heavy files listed in scripts/heavy-tests.txt, for
// the inner loop of a change; `npm test` and CI run them all.
//
// Bounds, so that no run can wait forever: each test and hook has its own time-out
// (test/helpers/node-test.ts, TEST_TIMEOUT_MS), and each file has one here (TEST_FILE_TIMEOUT_MS), which
// also ends a file that something keeps alive after its tests are done.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const FILE_TIMEOUT_MS = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 15 * 60_000);

const args = process.argv.slice(2);
const fast = args.includes('--fast');
const only = args.filter((a) => a !== '--fast');
/** One path a line; `#` starts a comment (why the file is heavy). test/tidy/tidy.test.ts checks each exists. */
const heavy = new Set(
  readFileSync('scripts/heavy-tests.txt', 'utf8')
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter(Boolean),
);
const files = (
  only.length
    ? only
    : readdirSync('test', { recursive: true })
        .map(String)
        .filter((f) => f.endsWith('.test.ts'))
        .sort()
        .map((f) => join('test', f))
).filter((f) => !(fast && heavy.has(f)));

const suite = fast ? `fast suite (${heavy.size} heavy files left out)` : 'test suite';

function run(label, env) {
  process.stdout.write(`\n=== ${suite} on ${label} ===\n`);
  const started = Date.now();
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-concurrency=4', `--test-timeout=${FILE_TIMEOUT_MS}`, ...files],
    { stdio: 'inherit', env: { ...process.env, ...env } },
  );
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stdout.write(`=== ${label}: ${result.status === 0 ? 'passed' : 'FAILED'} in ${seconds} s wall time ===\n`);
  return result.status ?? 1;
}

let failed = run('SQLite', { TEST_DATABASE_URL: '' });
if (process.env.TEST_DATABASE_URL)
  failed = run(`PostgreSQL (${process.env.TEST_DATABASE_URL.replace(/\/\/[^@]*@/, '//')})`, {}) || failed;
else process.stdout.write('\nTEST_DATABASE_URL is not set: the PostgreSQL run was skipped.\n');
process.exit(failed);
