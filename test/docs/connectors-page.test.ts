// docs/connectors.md's commands, run as written, in bash: the reference adapter started, called by hand with
// signed requests, then the service started with CONNECTORS_FILE naming it. Its ports are this run's free
// ones instead of 9100 and 8080, `npx payouts` is this checkout's command, and the files it writes land in a
// folder of its own.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { engine } from '../helpers/harness.ts';
import { describe, it } from '../helpers/node-test.ts';
import { freePort, runCommand } from '../helpers/processes.ts';
import { tempDir } from '../helpers/temp-dirs.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** tsx by its location: the commands run in a folder of their own, where `--import tsx` would not resolve. */
const TSX = import.meta.resolve('tsx');

describe('docs/connectors.md', { skip: engine === 'postgres' ? 'it runs on the embedded database' : false }, () => {
  it('runs as written: the adapter answers, idempotently, and the service serves the protocol', async () => {
    const page = readFileSync(new URL('../../docs/connectors.md', import.meta.url), 'utf8');
    const blocks = [...page.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
    assert.ok(blocks.length >= 3, `the page has its three sh blocks (${blocks.length})`);
    const [adapterPort, servicePort] = [await freePort(), await freePort()];
    const commands = blocks
      .join('\n')
      .replaceAll('9100', String(adapterPort))
      .replaceAll('8080', String(servicePort))
      .replaceAll('node examples/', `node ${ROOT}examples/`);
    // `exec`: the backgrounded `npx payouts serve &` is then the server itself, which the trap stops.
    const payouts = `exec node --import ${TSX} ${ROOT}src/main.ts "$@"`;
    const npx = `npx() { if [ "$1" = payouts ]; then shift; ${payouts}; else command npx "$@"; fi; }`;
    const script = `set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n${npx}\n${commands}`;
    const folder = tempDir('connectors-page');
    const env = { ...process.env, PORT: String(servicePort), HOST: '127.0.0.1', DATA_DIR: folder, LOG_LEVEL: 'warn' };
    const ran = await runCommand('bash', ['-c', script], { env, cwd: folder, timeoutMs: 90_000 });
    const shown = `stdout:\n${ran.stdout}\nstderr:\n${ran.stderr}`;
    assert.equal(ran.code, 0, `the blocks exit 0\n${shown}`);
    const lines = ran.stdout.trim().split('\n');
    const answers = lines.filter((line) => line.startsWith('{'));
    const [first, again] = [JSON.parse(answers[0] ?? '{}'), JSON.parse(answers[1] ?? '{}')];
    assert.equal(first.status, 'PENDING', shown);
    assert.deepEqual(again, first, `the same payout twice is one payout\n${shown}`);
    assert.match(ran.stdout, /"received":2/, `the list counts both submissions of it\n${shown}`);
    assert.match(ran.stdout, /"status":"FAILED"/, `the cancel answers FAILED\n${shown}`);
    assert.match(ran.stdout, /^401$/m, `unsigned is 401\n${shown}`);
    assert.match(lines.at(-1) ?? '', /\w/, `the service printed its protocol's title\n${shown}`);
  });
});
