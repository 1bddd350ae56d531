// The package as a developer gets it: `npm pack` builds dist/ and makes the tarball; the tarball installs
// into an empty folder (better-sqlite3 from the registry) on Node 20 with `--engine-strict`, with no engine
// warning and no install script of its own; `npx payouts serve` starts the sandbox on plain Node, with no tsx
// and no TypeScript source in the package; its library entry imports with its types, and the Vitest example
// type-checks against those types (skipLibCheck off) and runs, in the walkthrough's own folder.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { client, engine } from '../helpers/harness.ts';
import { after, before, describe, it } from '../helpers/node-test.ts';
import { freePort, runCommand, runScript, STOP_JOBS_WITH_SCRIPT, spawnServer } from '../helpers/processes.ts';

/** Packing builds, installing fetches from the registry: minutes on a loaded machine, never forever. */
const NPM_TIMEOUT_MS = 300_000;
const PACKAGE = JSON.parse(readFileSync('package.json', 'utf8')) as { name: string };

// Without the inherited loader (NODE_OPTIONS) the packed CLI runs on plain Node, as a user's would.
// npm takes what its cache holds without asking the registry again (`npm ci` has just filled it): the
// walkthrough's `npm install` then runs where the registry cannot be reached, as on a CI runner whose
// network is closed, where it used to wait on the registry past its bound. What the cache lacks still comes
// from the registry.
const env = {
  ...process.env,
  NODE_OPTIONS: '',
  npm_config_update_notifier: 'false',
  npm_config_prefer_offline: 'true',
};
const npmVersion = await runCommand('npm', ['--version'], { env, timeoutMs: 30_000 }).catch(() => undefined);
// Nothing in the package test touches the engine under test (the packed sandbox is always embedded), so it
// runs once, in the SQLite pass.
const skip =
  npmVersion?.code !== 0
    ? 'npm is not available on this machine: the packed package is not tested'
    : engine === 'postgres'
      ? 'the packed package runs its own embedded database: tested once, in the SQLite run'
      : false;

/** The version of a package this repository's install holds. */
function installedVersion(name: string): string {
  const file = new URL(`../../node_modules/${name}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

function ok(result: { code: number; stdout: string; stderr: string }, what: string): string {
  assert.equal(result.code, 0, `${what} failed\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
  return result.stdout;
}

/** What a user's plain script does with the installed package's test API: no TypeScript, no tsx. */
const SANDBOX_FLOW = `
import { existsSync } from 'node:fs';
import { startSandbox } from '${PACKAGE.name}';

for (const mode of ['in-process', 'child-process']) {
  const sandbox = await startSandbox({ mode });
  const call = async (method, path, body) => {
    const response = await fetch(sandbox.baseUrl + path, {
      method,
      headers: { authorization: sandbox.credentials.authorization, 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const json = await response.json();
    if (!response.ok) throw new Error(method + ' ' + path + ': ' + JSON.stringify(json));
    return json;
  };
  try {
    const customer = await call('POST', '/customers', {
      customerType: 'INDIVIDUAL', platformCustomerId: 'flow-1', fullName: 'Ada Lovelace',
    });
    const accounts = await call('GET', '/customers/internal-accounts?customerId=' + customer.id + '&currency=USD');
    await call('POST', '/sandbox/internal-accounts/' + accounts.data[0].id + '/fund', { amount: 10000 });
    const bank = await call('POST', '/customers/external-accounts', {
      customerId: customer.id, currency: 'USD',
      accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '123456000', routingNumber: '021000021',
        beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada Lovelace' } },
    });
    const payout = await call('POST', '/transfer-out', {
      source: { accountId: accounts.data[0].id }, destination: { accountId: bank.id }, amount: 2500,
    });
    const webhook = await sandbox.webhooks.waitFor('OUTGOING_PAYMENT.COMPLETED', {
      match: (delivery) => delivery.data.id === payout.id,
    });
    await (await sandbox.newWorkspace()).advanceClock('1m');
    await sandbox.close();
    const removed = !existsSync(sandbox.dataDir);
    console.log(JSON.stringify({ mode, status: webhook.data.status, verified: webhook.verified, removed }));
  } finally {
    await sandbox.close();
  }
}
`;

/** The walkthrough's blocks, in order: each ```sh block of the page starts with `# step: NAME`. */
function walkthroughSteps(): Array<{ name: string; script: string }> {
  const page = readFileSync(new URL('../../docs/sandbox-walkthrough.md', import.meta.url), 'utf8');
  return [...page.matchAll(/```sh\n# step: (\S+)\n([\s\S]*?)```/g)].map(([, name = '', script = '']) => ({
    name,
    script,
  }));
}

/** The walkthrough as one script that marks where each step starts, against `port` and the real tarball. */
function walkthroughScript(tarball: string, port: number): string {
  const steps = walkthroughSteps();
  assert.deepEqual(
    steps.map((step) => step.name),
    ['install', 'start', 'fixture', 'trigger', 'logs', 'fault', 'snapshots', 'stop'],
    'the walkthrough has its eight steps',
  );
  // A step's output may end without a newline (curl's): each marker starts a line of its own.
  const body = steps.map(({ name, script }) => `printf '\\n::step %s\\n' ${name}\n${script}`).join('\n');
  // If a step fails or runs out of time, what the page started in the background goes too. Only then: on
  // success the page's own last step must have stopped everything, and the test checks it.
  return `set -euo pipefail\nexec 2>&1\n${STOP_JOBS_WITH_SCRIPT}\n${body}`
    .replaceAll('/path/to/payouts-sandbox-server-0.1.0.tgz', tarball)
    .replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`);
}

/** What each step printed, by step name. */
function outputByStep(stdout: string): Map<string, string> {
  const parts = stdout.split(/^::step (\S+)\n/m);
  const found = new Map<string, string>();
  for (let i = 1; i < parts.length; i += 2) found.set(parts[i] ?? '', parts[i + 1] ?? '');
  return found;
}

describe('the packed package', { skip }, () => {
  const root = mkdtempSync(join(tmpdir(), 'payouts-pack-'));
  // The walkthrough's own install step makes this folder: the other tests use the package it installed.
  const app = join(root, 'my-tests');
  let walkthrough: { code: number; stdout: string; port: number; steps: Map<string, string> };
  after(() => rmSync(root, { recursive: true, force: true }));

  before(
    async () => {
      const packed = ok(
        await runCommand('npm', ['pack', '--json', '--pack-destination', root], { env, timeoutMs: NPM_TIMEOUT_MS }),
        'npm pack',
      );
      const [{ filename }] = JSON.parse(packed.slice(packed.indexOf('['))) as [{ filename: string }];
      const port = await freePort();
      const script = walkthroughScript(join(root, filename), port);
      // PORT is what `npx payouts serve` listens on and where the other commands look for it by default.
      // Strict about engines, as a careful CI is: a dependency that wants a newer Node fails the install step.
      const ran = await runScript(script, {
        env: { ...env, PORT: String(port), npm_config_engine_strict: 'true' },
        cwd: root,
        timeoutMs: NPM_TIMEOUT_MS,
      });
      walkthrough = { ...ran, port, steps: outputByStep(ran.stdout) };
      assert.ok(existsSync(join(app, 'node_modules')), `the walkthrough installed the package\n${ran.stdout}`);
    },
    { timeout: 2 * NPM_TIMEOUT_MS },
  );

  /** What a step of the walkthrough printed; the whole run's output when it never got there. */
  function step(name: string): string {
    const printed = walkthrough.steps.get(name);
    return (
      printed ??
      assert.fail(`the walkthrough stopped before "${name}" (exit ${walkthrough.code}):\n${walkthrough.stdout}`)
    );
  }

  it('walkthrough: runs to the end, and its stop leaves nothing running', async () => {
    assert.equal(walkthrough.code, 0, `docs/sandbox-walkthrough.md runs as written:\n${walkthrough.stdout}`);
    step('stop');
    const answered = await fetch(`http://127.0.0.1:${walkthrough.port}/readyz`).catch(() => undefined);
    assert.equal(answered, undefined, 'its last step stopped the server: nothing answers on its port');
  });

  it('walkthrough: starts with the preset credentials and runs the demo fixture', () => {
    assert.match(step('start'), /\{"data":\[\],"hasMore":false/, 'the preset credentials work at once');
    const fixture = step('fixture');
    for (const name of ['customer', 'funding', 'payout_ok', 'payout_fails', 'execute'])
      assert.match(fixture, new RegExp(`^${name}\\b`, 'm'), `the fixture ran its ${name} step:\n${fixture}`);
  });

  it('walkthrough: a triggered event reaches the local receiver, verified, and is in the request log', () => {
    const trigger = step('trigger');
    assert.match(trigger, /OUTGOING_PAYMENT\.COMPLETED recorded: Webhook:/, trigger);
    assert.match(trigger, /OUTGOING_PAYMENT\.COMPLETED\s+Webhook:\S+\s+Transaction:\S+\s+verified/, trigger);
    assert.match(step('logs'), /201\s+POST\s+\/sandbox\/trigger/, `the log shows the trigger:\n${step('logs')}`);
  });

  it('walkthrough: an injected fault answers once, and the log names it', () => {
    const fault = step('fault');
    assert.match(fault, /first GET \/customers: 503\nsecond GET \/customers: 200/, fault);
    assert.match(fault, /503\s+GET\s+\/customers\s.*fault=Fault:/, `the log names the rule:\n${fault}`);
  });

  it('walkthrough: a snapshot survives a reset', () => {
    const counts = [...step('snapshots').matchAll(/customers (?:before|after) the \w+: (\d+)/g)].map((m) =>
      Number(m[1]),
    );
    assert.equal(counts.length, 3, step('snapshots'));
    assert.ok((counts[0] ?? 0) > 0, 'customers before the reset');
    assert.deepEqual(counts, [counts[0], 0, counts[0]], 'none after the reset, all back after the restore');
  });

  it('installs with --engine-strict (Node 20 here): no engine warning, no install script of its own', () => {
    const install = step('install');
    assert.doesNotMatch(install, /EBADENGINE|Unsupported engine/, `every dependency supports Node 20:\n${install}`);
    const installed = join(app, 'node_modules', ...PACKAGE.name.split('/'), 'package.json');
    const { scripts = {} } = JSON.parse(readFileSync(installed, 'utf8')) as { scripts?: Record<string, string> };
    const lifecycle = ['preinstall', 'install', 'postinstall', 'prepare'].filter((name) => name in scripts);
    assert.deepEqual(lifecycle, [], 'the packed package.json declares no script an install runs');
    assert.ok(!install.includes(`${PACKAGE.name}@`), `npm names no install script of ours:\n${install}`);
  });

  it('holds compiled JavaScript with declarations, and no TypeScript source', () => {
    const installed = join(app, 'node_modules', ...PACKAGE.name.split('/'));
    const files = ['dist/index.js', 'dist/index.d.ts', 'dist/main.js', 'dist/testing/index.d.ts', 'bin/payouts.mjs'];
    for (const file of [...files, 'README.md']) {
      assert.ok(existsSync(join(installed, file)), `the package holds ${file}`);
    }
    assert.ok(!existsSync(join(installed, 'src')), 'the TypeScript sources are not shipped');
    assert.ok(!existsSync(join(installed, 'test')), 'the tests are not shipped');
  });

  it('`npx payouts` finds the installed command', async () => {
    const version = await runCommand('npx', ['--no-install', 'payouts', '--version'], { env, cwd: app });
    assert.match(ok(version, 'npx payouts --version'), /^payouts \d+\.\d+\.\d+/, 'the packed CLI prints its version');
  });

  it('`payouts serve` starts the sandbox on plain Node and answers the API', async () => {
    const dataDir = join(root, 'data');
    const server = await spawnServer(
      { ...env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn' },
      undefined,
      // The file npx runs, started directly: npm exec does not pass SIGTERM on, and stop() must reach the server.
      { command: [process.execPath, 'node_modules/.bin/payouts', 'serve'], cwd: app },
    );
    try {
      const text = readFileSync(join(dataDir, 'default-platform-credentials.txt'), 'utf8');
      const field = (name: string) => new RegExp(`${name}:\\s+(\\S+)`).exec(text)?.[1] ?? '';
      const api = client(server.baseUrl, { tokenId: field('tokenId'), clientSecret: field('clientSecret') });
      const listed = await api.get('/customers');
      assert.equal(
        listed.status,
        200,
        `GET /customers with the first-start credentials: ${JSON.stringify(listed.body)}`,
      );
      // What the compiler does not emit ships too: the dashboard's templates and its stylesheet.
      const signIn = await fetch(`${server.baseUrl}/dashboard/sign-in`);
      assert.equal(signIn.status, 200, 'the dashboard renders its sign-in page');
      assert.equal((await fetch(`${server.baseUrl}/docs`)).status, 200, 'the API reference is served');
    } finally {
      await server.stop();
    }
  });

  it('startSandbox runs a payout from a plain .mjs file, in-process and as a child process', async () => {
    writeFileSync(join(app, 'flow.mjs'), SANDBOX_FLOW);
    const result = await runCommand(process.execPath, ['flow.mjs'], { env, cwd: app, timeoutMs: 120_000 });
    const lines = ok(result, 'node flow.mjs').trim().split('\n');
    assert.deepEqual(
      lines.map((line) => JSON.parse(line) as unknown),
      ['in-process', 'child-process'].map((mode) => ({ mode, status: 'COMPLETED', verified: true, removed: true })),
      `the packed startSandbox paid out and cleaned up in both modes:\n${result.stdout}${result.stderr}`,
    );
  });

  it('imports as a library, with its types', async () => {
    const script = `import('${PACKAGE.name}').then((m) => console.log(typeof m.createApp, typeof m.loadConfig))`;
    const result = await runCommand(process.execPath, ['-e', script], { env, cwd: app, timeoutMs: 30_000 });
    assert.equal(ok(result, 'import the package').trim(), 'function function', 'createApp and loadConfig exported');
  });

  // Last: it makes the walkthrough's folder an ES module package, as the testing page says to.
  it('the Vitest example type-checks (skipLibCheck off) and runs in the walkthrough folder', async () => {
    const example = fileURLToPath(new URL('../../examples/vitest/', import.meta.url));
    const tsconfig = JSON.parse(readFileSync(join(example, 'tsconfig.json'), 'utf8'));
    assert.equal(tsconfig.compilerOptions.skipLibCheck, false, "the example checks the package's declarations");
    // Its sources and tsconfig.json (not package.json: the folder has its own; nor Vite's cache of a run here).
    for (const file of readdirSync(example).filter((f) => f.endsWith('.ts') || f === 'tsconfig.json'))
      copyFileSync(join(example, file), join(app, file));
    ok(await runCommand('npm', ['pkg', 'set', 'type=module'], { env, cwd: app }), 'npm pkg set type=module');
    // The example's tools, at the versions this repository's install holds (npm's cache has them).
    const { devDependencies } = JSON.parse(readFileSync(join(example, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    const tools = Object.keys(devDependencies)
      .filter((name) => name !== PACKAGE.name)
      .map((name) => `${name}@${installedVersion(name)}`);
    const args = ['install', '--no-audit', '--no-fund', '--engine-strict', '--save-dev', ...tools];
    const installed = await runCommand('npm', args, { env, cwd: app, timeoutMs: NPM_TIMEOUT_MS });
    ok(installed, 'npm install (the example)');
    assert.doesNotMatch(installed.stderr, /EBADENGINE/, installed.stderr);
    ok(await runCommand('npx', ['--no-install', 'tsc'], { env, cwd: app, timeoutMs: 120_000 }), 'tsc (the example)');
    const run = await runCommand('npx', ['--no-install', 'vitest', 'run'], {
      env: { ...env, CI: 'true', NO_COLOR: '1' },
      cwd: app,
      timeoutMs: 180_000,
    });
    const output = ok(run, 'vitest run (the example)') + run.stderr;
    assert.match(output, /Tests\s+2 passed/, output);
    assert.doesNotMatch(output, /CommonJS|configLoader/, `no warning about ESM in a CommonJS package:\n${output}`);
  });
});
