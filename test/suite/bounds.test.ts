import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from '../helpers/node-test.ts';
import { PROCESS_TIMEOUT_MS, runScript, STOP_JOBS_WITH_SCRIPT } from '../helpers/processes.ts';

/** Runs one fixture file the way scripts/test.mjs runs the suite, with the bounds given. */
function runFixture(
  file: string,
  env: Record<string, string>,
  fileTimeoutMs: number,
): Promise<{ code: number; output: string; ms: number }> {
  const started = Date.now();
  const args = ['--import', 'tsx', '--test', `--test-timeout=${fileTimeoutMs}`, `test/fixtures/suite/${file}`];
  // NODE_TEST_CONTEXT tells node a test file started it, and makes it refuse to run files of its own.
  const { NODE_TEST_CONTEXT: _inner, ...outer } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { env: { ...outer, ...env }, timeout: fileTimeoutMs + PROCESS_TIMEOUT_MS, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr, ms: Date.now() - started });
      },
    );
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the suite cannot hang', () => {
  it('a test and a hook that never finish fail by name within their time-out, and the file still ends', async () => {
    const result = await runFixture('hangs.ts', { TEST_TIMEOUT_MS: '1500' }, 8_000);
    assert.notEqual(result.code, 0, result.output);
    assert.match(result.output, /not ok \d+ - hangs on purpose[\s\S]*?test timed out after 1500ms/, result.output);
    assert.match(result.output, /\nok \d+ - runs after the hang/, result.output);
    assert.match(
      result.output,
      /not ok \d+ - a suite whose hook hangs[\s\S]*?failed running before hook/,
      result.output,
    );
  });

  it('a server a test forgot to stop is stopped when its file ends, and the file exits', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payouts-orphan-'));
    try {
      const pidFile = join(dir, 'pid');
      // A file that something kept alive would run into this file bound and fail; it must end by itself.
      const result = await runFixture('orphan.ts', { ORPHAN_DATA_DIR: dir, ORPHAN_PID_FILE: pidFile }, 10 * 60_000);
      assert.equal(result.code, 0, result.output);
      const pid = Number(readFileSync(pidFile, 'utf8'));
      assert.ok(pid > 0, 'pid > 0');
      assert.equal(alive(pid), false, `server process ${pid} outlived its test file`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a script that runs out of time stops the jobs it started in process groups of their own', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payouts-script-'));
    const pidFile = join(dir, 'pid');
    try {
      // As the walkthrough does: job control on, a server-like job in the background, then a wait that never ends.
      const script = [
        'set -m',
        STOP_JOBS_WITH_SCRIPT,
        'sleep 600 &',
        `echo $! > ${pidFile}`,
        'while true; do sleep 0.1; done',
      ].join('\n');
      await assert.rejects(runScript(script, { env: process.env, timeoutMs: 1_500 }), /did not finish within 1500 ms/);
      const pid = Number(readFileSync(pidFile, 'utf8'));
      assert.ok(pid > 0, 'the script started its job');
      for (let waited = 0; alive(pid) && waited < 10_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
      assert.equal(alive(pid), false, `the background job ${pid} outlived its script`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
