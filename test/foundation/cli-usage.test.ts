// What a newcomer types first: `payouts help`, `payouts help COMMAND`, `payouts version` and `-V`, `payouts
// serve --port N`; and what a typo gets back: one line naming the closest match and exit code 2, no usage
// dump scrolling it away. Real processes of the sources' CLI.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from '../helpers/node-test.ts';
import { freePort, runCli, spawnServer } from '../helpers/processes.ts';
import { tempDir } from '../helpers/temp-dirs.ts';

const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

describe('command line usage', () => {
  // A data folder that must stay absent: none of these commands may run anything.
  const untouched = join(tempDir('usage'), 'data');
  const env = { ...process.env, DATA_DIR: untouched, DATABASE_URL: '', LOG_LEVEL: 'silent' };

  it('`help`, `help COMMAND`, `help GROUP COMMAND` print the usage that --help prints', async () => {
    const cases: Array<[string[], string[]]> = [
      [['help'], ['--help']],
      [
        ['help', 'serve'],
        ['serve', '--help'],
      ],
      [
        ['help', 'tokens'],
        ['tokens', '--help'],
      ],
      [
        ['help', 'transactions', 'settle'],
        ['transactions', 'settle', '--help'],
      ],
      [
        ['tokens', 'help', 'create'],
        ['tokens', 'create', '--help'],
      ],
    ];
    for (const [words, same] of cases) {
      const help = await runCli(words, env);
      assert.equal(help.code, 0, `payouts ${words.join(' ')}: ${help.stderr}`);
      assert.equal(help.stdout, (await runCli(same, env)).stdout, `payouts ${words.join(' ')}`);
    }
    const listing = (await runCli(['help'], env)).stdout;
    assert.match(listing, /^ {2}help \[command\.\.\.\] /m, 'the usage lists `help`');
    assert.match(listing, /^ {2}-V, --version /m, 'and the version flag');
    assert.match((await runCli(['help', 'serve'], env)).stdout, /--port <port>[\s\S]*--host <host>/);
    assert.equal(existsSync(untouched), false, 'no data folder was created: nothing ran');
  });

  it('`--version`, `-V`, `-v` and `version` print the version', async () => {
    for (const words of [['--version'], ['-V'], ['-v'], ['version']]) {
      const printed = await runCli(words, env);
      assert.deepEqual([printed.code, printed.stdout], [0, `payouts ${version}\n`], words.join(' '));
    }
  });

  it('an unknown command or option is one line with the closest match, exit code 2', async () => {
    const cases: Array<[string[], string]> = [
      [['serve', '--prot', '31085'], "payouts: unknown option '--prot' (did you mean --port?)"],
      [['serv'], "payouts: unknown command 'serv' (did you mean serve?)"],
      [['help', 'serv'], "payouts: unknown command 'serv' (did you mean serve?)"],
      [['tokens', 'craete'], "payouts: unknown command 'craete' (did you mean create?)"],
      [['platforms', 'create', '--nmae', 'x'], "payouts: unknown option '--nmae' (did you mean --name?)"],
      // Nothing close: the line says where the usage is.
      [['frobnicate'], "payouts: unknown command 'frobnicate' (see `payouts --help`)"],
      [['tokens', 'revoke'], "payouts: missing required argument 'id' (see `payouts tokens revoke --help`)"],
    ];
    for (const [words, line] of cases) {
      const refused = await runCli(words, env);
      assert.deepEqual([refused.code, refused.stderr, refused.stdout], [2, `${line}\n`, ''], words.join(' '));
    }
    assert.equal(existsSync(untouched), false, 'nothing ran');
  });

  it('`serve --port` and `--host` win over PORT and HOST', async () => {
    const port = await freePort();
    // spawnServer sets PORT=0 and HOST=127.0.0.1: the flags must override both.
    const server = await spawnServer({ DATA_DIR: tempDir('port'), DATABASE_URL: '' }, undefined, {
      command: [
        process.execPath,
        '--import',
        'tsx',
        'src/main.ts',
        'serve',
        '--port',
        String(port),
        '--host',
        '127.0.0.2',
      ],
    });
    try {
      assert.equal(server.port, port, server.output());
      assert.equal(new URL(server.baseUrl).hostname, '127.0.0.2', 'the interface it was told');
      assert.equal((await fetch(`http://127.0.0.2:${port}/readyz`)).status, 200);
    } finally {
      await server.stop();
    }
    const bad = await runCli(['serve', '--port', 'eighty'], env);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /^payouts: PORT="eighty" is not a whole number; set it to a port number/);
    assert.equal(existsSync(untouched), false, 'a refused port starts nothing');
  });
});
