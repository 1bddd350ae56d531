import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { runCommand } from '../helpers/processes.ts';

// On Node 20, while any AsyncLocalStorage is enabled, every promise the process makes runs a hook, which cost
// SQLite's money path a tenth to a fifth of its throughput (docs/performance.md). The store keeps its async
// context off when no request needs it: the last statement of a transaction is marked on the statement, and
// the idempotency layer's ambient transaction is turned off when no request holds one open.
describe("Node's promise hooks stay off while the service works", () => {
  it('after transfer-outs, a quote and its execution, rail steps and idempotent requests', async () => {
    // node:test keeps hooks on in its own process, so the service runs in a child (promise-hooks.child.ts).
    const child = await runCommand(process.execPath, ['--import', 'tsx', 'test/foundation/promise-hooks.child.ts'], {
      env: process.env,
    });
    assert.equal(child.code, 0, `the child ran to the end:\n${child.stdout}\n${child.stderr}`);
    const seen = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Record<string, boolean>;
    assert.equal(seen.atStart, false, 'hooks are off in a fresh process');
    assert.equal(seen.inStorage, true, 'the probe sees hooks that are on');
    assert.equal(seen.afterStorage, false, 'and sees them off again');
    assert.equal(seen.afterRequests, false, `no AsyncLocalStorage is left enabled by the service: ${child.stdout}`);
  });
});
