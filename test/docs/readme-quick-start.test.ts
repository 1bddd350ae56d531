// The README's quick start, run as written: its shell block, in bash, against a server started the way
// `npm start` starts one (the embedded database), with `npx payouts` meaning this checkout's command and
// localhost:8080 meaning that server. A field the API refuses, or a payout that does not complete, shows up here
// before a newcomer meets it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createTestDatabase, engine, type TestDatabase } from '../helpers/harness.ts';
import { after, before, describe, it } from '../helpers/node-test.ts';
import { runCommand, spawnServer, type ServerProcess } from '../helpers/processes.ts';

/** The first ```sh block under a README heading. */
export function readmeShellBlock(heading: string): string {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const start = readme.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `the README has the heading "${heading}"`);
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(start))?.[1];
  return block ?? assert.fail(`a sh block follows "${heading}"`);
}

// `npx payouts` in the README runs the built package; here it runs the sources, as `npm run payouts` does.
const SOURCE_NPX =
  'npx() { if [ "$1" = payouts ]; then shift; node --import tsx src/main.ts "$@"; else command npx "$@"; fi; }';

describe('the README quick start', { skip: engine === 'postgres' ? 'it runs on the embedded database' : false }, () => {
  let database: TestDatabase;
  let server: ServerProcess;
  before(async () => {
    database = await createTestDatabase();
    server = await spawnServer(database.env);
  });
  after(async () => {
    await server.stop();
    await database.drop();
  });

  it('runs as written, and its payout is accepted, then read back COMPLETED', async () => {
    const block = readmeShellBlock('## Quick start: a first payout, to COMPLETED').replaceAll(
      'http://localhost:8080',
      server.baseUrl,
    );
    const script = `set -euo pipefail\n${SOURCE_NPX}\n${block}`;
    const ran = await runCommand('bash', ['-c', script], { env: { ...process.env, ...database.env } });
    const shown = `stdout:\n${ran.stdout}\nstderr:\n${ran.stderr}`;
    assert.equal(ran.code, 0, `the block exits 0\n${shown}`);
    // An error body carries a message; an id read from a refusal prints as undefined.
    assert.doesNotMatch(ran.stdout, /"message":|undefined/, `no request was refused\n${shown}`);
    // curl prints each answer without a newline: the payout's two answers are the last two objects printed.
    const answers = ran.stdout
      .split(/\n|(?=\{"id":"Transaction:)/)
      .filter((piece) => piece.startsWith('{"id":"Transaction:'));
    const accepted = JSON.parse(answers.at(-2) ?? '{}') as { id?: string; status?: string };
    const readBack = JSON.parse(answers.at(-1) ?? '{}') as { id?: string; status?: string };
    assert.match(accepted.id ?? '', /^Transaction:/, `the transfer-out's answer is the payout\n${shown}`);
    assert.equal(accepted.status, 'PENDING', `the payout was accepted\n${shown}`);
    assert.equal(readBack.id, accepted.id, `the last command reads the payout back\n${shown}`);
    assert.equal(readBack.status, 'COMPLETED', `the worker carried it to COMPLETED\n${shown}`);
  });
});
