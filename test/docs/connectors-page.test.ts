// docs/connectors.md's commands, run as written, in bash: the reference adapter started, called by hand with
// signed requests, then the service started with CONNECTORS_FILE naming it. Its ports are this run's free
// ones instead of 9100 and 8080, `npx payouts` is this checkout's command, and the files it writes land in a
// folder of its own.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { engine } from '../helpers/harness.ts';
import { describe, it } from '../helpers/node-test.ts';
import { freePort, runCommand, runScript } from '../helpers/processes.ts';
import { schemaDirForTests } from '../helpers/iso20022.ts';
import { tempDir } from '../helpers/temp-dirs.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** tsx by its location: the commands run in a folder of their own, where `--import tsx` would not resolve. */
const TSX = import.meta.resolve('tsx');
const page = readFileSync(new URL('../../docs/connectors.md', import.meta.url), 'utf8');
/** The HTTP connector's blocks end where the bank files begin, whose reference blocks name a bank connector. */
const BANK_FILES = '# ISO 20022 bank files';
/** The bank files walk-through: its blocks run on their own, with a server of their own. */
const WALK_THROUGH = '## Walk-through: a payout through bank files';
const shBlocks = (text: string) => [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
// `exec`: a backgrounded `npx payouts serve &` is then the server itself, which the trap stops.
const payouts = `exec node --import ${TSX} ${ROOT}src/main.ts "$@"`;
const npx = `npx() { if [ "$1" = payouts ]; then shift; ${payouts}; else command npx "$@"; fi; }`;
/** For a script run in a process group of its own (runScript), which stops what it left running. */
const inGroup = `node --import ${TSX} ${ROOT}src/main.ts "$@"`;
const npxInGroup = `npx() { if [ "$1" = payouts ]; then shift; ${inGroup}; else command npx "$@"; fi; }`;

describe('docs/connectors.md', { skip: engine === 'postgres' ? 'it runs on the embedded database' : false }, () => {
  it('runs as written: the adapter answers, idempotently, and the service serves the protocol', async () => {
    const blocks = shBlocks(page.slice(0, page.indexOf(BANK_FILES)));
    assert.ok(blocks.length >= 3, `the page has its three sh blocks (${blocks.length})`);
    const [adapterPort, servicePort] = [await freePort(), await freePort()];
    const commands = blocks
      .join('\n')
      .replaceAll('9100', String(adapterPort))
      .replaceAll('8080', String(servicePort))
      .replaceAll('node examples/', `node ${ROOT}examples/`);
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

  it('walks a payout through bank files: exported, answered by the fake bank, COMPLETED, reconciled', async () => {
    const at = page.indexOf(WALK_THROUGH);
    assert.ok(at > 0, `the page has "${WALK_THROUGH}"`);
    const blocks = shBlocks(page.slice(at));
    assert.equal(blocks.length, 3, 'the walk-through has its three sh blocks');
    const port = await freePort();
    const commands = blocks
      .join('\n')
      .replaceAll('8080', String(port))
      .replaceAll('/usr/share/iso20022', schemaDirForTests());
    const script = `set -euo pipefail\n${npxInGroup}\n${commands}`;
    const folder = tempDir('connectors-page-bank');
    const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: folder, LOG_LEVEL: 'warn' };
    const ran = await runScript(script, { env, cwd: folder, timeoutMs: 240_000, label: 'the bank walk-through' });
    const shown = `stdout:\n${ran.stdout}\nstderr:\n${ran.stderr}`;
    assert.equal(ran.code, 0, `the blocks exit 0\n${shown}`);
    assert.match(ran.stdout, /RELEASED/, `its file is released\n${shown}`);
    assert.match(
      ran.stdout,
      /-1-pain\.002-.*\.xml\n.*-2-camt\.054-.*\.xml/,
      `the bank answered, and the watcher applied both\n${shown}`,
    );
    assert.match(ran.stdout, /PENDING\s+COMPLETED 12345 EUR\s+-$/m, `reconciled, no difference\n${shown}`);
    assert.match(ran.stderr, /1 payments, 1 matched, 0 differences/, shown);
  });
});
