// The Vitest example of docs/testing-with-the-sandbox.md (examples/vitest/) is run as a user would run it,
// by Vitest itself: its globalSetup starts the sandbox, its test pays out and waits for the signed webhook.
// The example cannot rot: if it stops passing, this test fails with Vitest's report.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engine } from '../helpers/harness.ts';
import { describe, it } from '../helpers/node-test.ts';
import { freePort, runCommand } from '../helpers/processes.ts';

const VITEST = join('node_modules', 'vitest', 'vitest.mjs');
const CONFIG = join('test', 'testing', 'vitest-example.config.ts');
// The example runs on the embedded database, whatever the suite's engine: one run of it says all.
const skip = engine === 'postgres' ? 'the example runs on the embedded database; the SQLite run covers it' : false;

interface VitestReport {
  success: boolean;
  numTotalTests: number;
  numPassedTests: number;
  testResults: Array<{ assertionResults: Array<{ title: string; status: string }> }>;
}

describe('the Vitest example', { skip }, () => {
  it('passes under Vitest: globalSetup starts the sandbox, the payout test gets its webhook', async () => {
    const out = mkdtempSync(join(tmpdir(), 'payouts-vitest-'));
    try {
      const report = join(out, 'report.json');
      const result = await runCommand(
        process.execPath,
        [VITEST, 'run', '--config', CONFIG, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`],
        // Named webhook ports, as a CI with a port allow-list runs it: the sandbox's, then one per worker.
        { env: { ...process.env, CI: 'true', WEBHOOK_PORT_BASE: String(await freePort()) }, label: 'vitest run' },
      );
      const output = `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
      assert.equal(result.code, 0, `vitest exited ${result.code}\n${output}`);
      const parsed = JSON.parse(readFileSync(report, 'utf8')) as VitestReport;
      const titles = parsed.testResults.flatMap((file) => file.assertionResults.map((t) => `${t.status} ${t.title}`));
      assert.equal(parsed.success, true, `the example's tests passed:\n${titles.join('\n')}`);
      assert.equal(parsed.numPassedTests, parsed.numTotalTests, `every test passed:\n${titles.join('\n')}`);
      assert.ok(
        titles.includes('passed a funded customer pays out, and the COMPLETED webhook arrives signed'),
        `the payout test ran and passed:\n${titles.join('\n')}`,
      );
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
