#!/usr/bin/env node
// Runs the whole suite on the embedded SQLite database, then again on PostgreSQL when TEST_DATABASE_URL
// names a server (each test file creates and drops a database of its own there).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const only = process.argv.slice(2);
const files = only.length
  ? only
  : readdirSync('test', { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.test.ts'))
      .sort()
      .map((f) => join('test', f));

function run(label, env) {
  process.stdout.write(`\n=== test suite on ${label} ===\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=4', ...files], {
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  return result.status ?? 1;
}

let failed = run('SQLite', { TEST_DATABASE_URL: '' });
if (process.env.TEST_DATABASE_URL) failed = run(`PostgreSQL (${process.env.TEST_DATABASE_URL.replace(/\/\/[^@]*@/, '//')})`, {}) || failed;
else process.stdout.write('\nTEST_DATABASE_URL is not set: the PostgreSQL run was skipped.\n');
process.exit(failed);
