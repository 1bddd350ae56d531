// `payouts fixtures`: a real server process, the real CLI, real HTTP, on both engines. Each test runs in a
// workspace of its own (a fresh platform), so counts are exact. The commands of docs/sandbox.md are run as written.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, createTestDatabase, engine, type Client, type TestDatabase } from '../helpers/harness.ts';
import { after, before, describe, it } from '../helpers/node-test.ts';
import { runCli, spawnServer, type CliResult, type ServerProcess } from '../helpers/processes.ts';
import { waitFor } from '../helpers/wait.ts';

const PRESET = {
  SANDBOX_TOKEN_ID: 'Token:00000000-0000-4000-8000-00000000c1c1',
  SANDBOX_CLIENT_SECRET: 'ci-sandbox-secret-0123456789abcdef',
};
const DEMO_STEPS = ['customer', 'usd_account', 'funding', 'bank_ok', 'bank_fails'];
const DEMO_PAYMENTS = ['payout_ok', 'payout_fails', 'quote', 'execute'];

interface Workspace {
  tokenId: string;
  clientSecret: string;
  api: Client;
}

type Answers = Record<string, { id?: string; status?: string; [field: string]: unknown }>;

/** A step that creates a customer with this platformCustomerId. */
const customer = (name: string, id: string, extra: Record<string, unknown> = {}) => ({
  name,
  method: 'POST',
  path: '/customers',
  body: { customerType: 'INDIVIDUAL', platformCustomerId: id, ...extra },
});

/** The text of one fenced block (```sh, ```json) of the fixtures section of docs/sandbox.md. */
function readmeBlock(language: string): string {
  const page = readFileSync(new URL('../../docs/sandbox.md', import.meta.url), 'utf8');
  const start = page.indexOf('### Fixtures: a known state in one command');
  assert.ok(start >= 0, 'docs/sandbox.md has its fixtures section');
  const end = page.indexOf('\n## ', start);
  const section = page.slice(start, end < 0 ? undefined : end);
  const block = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(section)?.[1];
  return block ?? assert.fail(`the fixtures section of docs/sandbox.md has a ${language} block`);
}

describe(`payouts fixtures (${engine})`, () => {
  let database: TestDatabase;
  let server: ServerProcess;
  const folder = mkdtempSync(join(tmpdir(), 'payouts-fixtures-'));
  before(async () => {
    database = await createTestDatabase();
    // Preset credentials are for the embedded sandbox only; on PostgreSQL every test uses a workspace.
    server = await spawnServer({ ...database.env, LOG_LEVEL: 'warn', ...(engine === 'sqlite' ? PRESET : {}) });
  });
  after(async () => {
    await server.stop();
    await database.drop();
    rmSync(folder, { recursive: true, force: true });
  });

  /** The environment of an operator's shell pointed at this server, with no credentials of its own. */
  function shellEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env, PAYOUTS_URL: server.baseUrl, ...extra };
    for (const name of ['SANDBOX_TOKEN_ID', 'SANDBOX_CLIENT_SECRET', 'SANDBOX_CREDENTIALS_FILE'])
      if (!(name in extra)) delete env[name];
    return env;
  }

  async function workspace(): Promise<Workspace> {
    const made = await client(server.baseUrl).post('/sandbox/workspaces', { name: 'fixtures-test' });
    assert.equal(made.status, 201, `workspace: ${JSON.stringify(made.body)}`);
    const { tokenId, clientSecret } = made.body as { tokenId: string; clientSecret: string };
    return { tokenId, clientSecret, api: client(server.baseUrl, { tokenId, clientSecret }) };
  }

  const fixtures = (w: Workspace, args: string[], extra: Record<string, string> = {}): Promise<CliResult> =>
    runCli(
      ['fixtures', ...args],
      shellEnv({ SANDBOX_TOKEN_ID: w.tokenId, SANDBOX_CLIENT_SECRET: w.clientSecret, ...extra }),
    );

  function fileOf(name: string, content: unknown): string {
    const path = join(folder, `${name}.json`);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
    return path;
  }

  function answersOf(result: CliResult): Answers {
    assert.equal(result.code, 0, `exit 0\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
    return JSON.parse(result.stdout) as Answers;
  }

  const count = async (api: Client, path: string) => {
    const res = await api.get(path);
    assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
    return (res.body as { totalCount: number }).totalCount;
  };

  const customerExists = async (api: Client, platformCustomerId: string) =>
    (await count(api, `/customers?platformCustomerId=${platformCustomerId}`)) > 0;

  it('the demo runs; a second run replays it (same ids, nothing new); after a reset it creates anew', async () => {
    const w = await workspace();
    const first = answersOf(await fixtures(w, ['demo', '--json']));
    assert.deepEqual(Object.keys(first), [...DEMO_STEPS, ...DEMO_PAYMENTS], 'one answer per step, by name');
    assert.equal(first.execute?.status, 'COMPLETED', 'the quote was executed');
    const transaction = (id: string | undefined) => w.api.get(`/transactions/${id}`);
    await waitFor(
      async () => (await transaction(first.payout_fails?.id)).body.status === 'FAILED',
      'the payout to the account ending in 003 to fail',
    );
    assert.equal((await transaction(first.payout_fails?.id)).body.failureReason, 'INVALID_BANK_ACCOUNT', 'why');
    await waitFor(
      async () => (await transaction(first.payout_ok?.id)).body.status === 'COMPLETED',
      'the payout to the good account to complete',
    );
    const counts = async () => ({
      customers: await count(w.api, '/customers'),
      transactions: await count(w.api, '/transactions'),
    });
    const counted = await counts();
    assert.deepEqual(counted, { customers: 1, transactions: 3 }, 'one customer; two payouts and the quote');

    const again = await fixtures(w, ['demo']);
    assert.equal(again.code, 0, again.stderr);
    const lines = again.stdout.trim().split('\n');
    assert.equal(lines.length, 9, `a line per step:\n${again.stdout}`);
    for (const [i, name] of [...DEMO_STEPS, ...DEMO_PAYMENTS].entries()) {
      const [stepName, method, path, status, id, replayed] = (lines[i] ?? '').split(/\s+/);
      assert.equal(stepName, name, `line ${i} names its step`);
      assert.match(status ?? '', /^20[01]$/, `${name}: the HTTP status`);
      assert.ok(path?.startsWith('/'), `${name}: the path`);
      if (name === 'usd_account') continue; // a list has no id of its own
      assert.equal(id, first[name]?.id, `${name}: the same id as the first run`);
      assert.equal(replayed, method === 'POST' ? '(replayed)' : undefined, `${name}: replayed`);
    }
    assert.deepEqual(await counts(), counted, 'nothing was created twice');

    assert.equal((await w.api.post('/sandbox/reset')).status, 200, 'reset');
    const afterReset = answersOf(await fixtures(w, ['demo', '--json']));
    assert.notEqual(afterReset.customer?.id, first.customer?.id, 'a reset forgets the keys: a new customer');
  });

  it('resolves references: answer paths, env variables, whole-string values keep their JSON type', async () => {
    const w = await workspace();
    const file = fileOf('references', {
      fixtures: [
        {
          name: 'customer',
          method: 'POST',
          path: '/customers',
          body: { customerType: 'INDIVIDUAL', platformCustomerId: 'ref-${env:FIXTURE_USER}', fullName: 'Ada $${x}' },
        },
        {
          name: 'accounts',
          method: 'GET',
          path: '/customers/internal-accounts?customerId=${customer:id}&currency=USD',
        },
        {
          name: 'funding',
          method: 'POST',
          path: '/sandbox/internal-accounts/${accounts:data.0.id}/fund',
          body: { amount: 2500 },
        },
        {
          name: 'topUp',
          method: 'POST',
          path: '/sandbox/internal-accounts/${accounts:data.0.id}/fund',
          body: { amount: '${funding:balance.amount}' },
        },
        {
          name: 'second',
          method: 'POST',
          path: '/customers',
          body: {
            customerType: 'INDIVIDUAL',
            platformCustomerId: 'second-${funding:balance.amount}-${env:FIXTURE_USER}',
            fullName: '${customer:fullName}',
          },
        },
      ],
    });
    // Credentials as flags this time, with none in the environment.
    const result = await runCli(
      ['fixtures', file, '--json', '--token-id', w.tokenId, '--client-secret', w.clientSecret],
      shellEnv({ FIXTURE_USER: 'u-7' }),
    );
    const answers = answersOf(result);
    assert.equal(answers.customer?.platformCustomerId, 'ref-u-7', 'an env variable inside a string');
    assert.equal(answers.customer?.fullName, 'Ada ${x}', '$${ is a literal ${');
    const balance = answers.topUp?.balance as { amount: number } | undefined;
    assert.equal(balance?.amount, 5000, 'the number from an answer was sent as a number: 2500 + 2500');
    assert.equal(answers.second?.platformCustomerId, 'second-2500-u-7', 'a number written into a longer string');
    assert.equal(answers.second?.fullName, 'Ada ${x}', 'a whole-string reference to a string');
    assert.equal(await count(w.api, '/customers'), 2, 'two customers');
  });

  it('a bad file exits 2 naming the step and the field, and sends nothing', async () => {
    const w = await workspace();
    const file = fileOf('bad', {
      fixtures: [
        customer('customer', 'bad-1'),
        { name: 'bank', method: 'FETCH', path: 'customers', color: 'red' },
        { name: 'list', method: 'GET', path: '/customers', body: {} },
      ],
    });
    const result = await fixtures(w, [file]);
    assert.equal(result.code, 2, `exit 2\n${result.stderr}`);
    assert.match(result.stderr, /step "bank" \(fixtures\[1\]\): method must be one of GET, POST, PUT, PATCH, DELETE/);
    assert.match(result.stderr, /step "bank" \(fixtures\[1\]\): path must start with \//, 'the path');
    assert.match(result.stderr, /step "bank" \(fixtures\[1\]\): color is not a field a step takes/, 'the stranger');
    assert.equal(result.stdout, '', 'no step line');
    assert.equal(await customerExists(w.api, 'bad-1'), false, 'the valid first step was not sent either');

    const notJson = await fixtures(w, [fileOf('not-json', '{"fixtures": [')]);
    assert.equal(notJson.code, 2, notJson.stderr);
    assert.match(notJson.stderr, /not-json\.json is not JSON/, 'says the file is no JSON');
    const missing = await fixtures(w, [join(folder, 'nowhere.json')]);
    assert.equal(missing.code, 2, missing.stderr);
    assert.match(missing.stderr, /no file .*nowhere\.json .*built-in: demo/, 'names the built-in fixtures');
  });

  it('an unknown step or unset variable is found before sending; a missing answer path stops there', async () => {
    const w = await workspace();
    const unknownStep = fileOf('unknown-step', {
      fixtures: [customer('first', 'unknown-1'), customer('second', 'unknown-2', { fullName: '${frist:fullName}' })],
    });
    const refused = await fixtures(w, [unknownStep]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(
      refused.stderr,
      /step "second" \(fixtures\[1\]\): body\.fullName refers to \$\{frist:fullName\}, but no earlier step is/,
    );
    assert.equal(await customerExists(w.api, 'unknown-1'), false, 'nothing was sent');

    const unsetVariable = fileOf('unset', { fixtures: [customer('first', 'unset-${env:FIXTURES_NOT_SET}')] });
    const unset = await fixtures(w, [unsetVariable]);
    assert.equal(unset.code, 2, unset.stderr);
    assert.match(
      unset.stderr,
      /step "first" \(fixtures\[0\]\): body\.platformCustomerId refers to \$\{env:FIXTURES_NOT_SET\}, but .* not set/,
    );

    const missingPath = fileOf('missing-path', {
      fixtures: [
        customer('first', 'path-1'),
        { name: 'accounts', method: 'GET', path: '/customers/internal-accounts?customerId=${first:id}&currency=USD' },
        {
          name: 'funding',
          method: 'POST',
          path: '/sandbox/internal-accounts/${accounts:data.5.id}/fund',
          body: { amount: 1 },
        },
        customer('third', 'path-3'),
      ],
    });
    const stopped = await fixtures(w, [missingPath]);
    assert.equal(stopped.code, 2, stopped.stderr);
    assert.match(
      stopped.stderr,
      /step "funding": path refers to \$\{accounts:data\.5\.id\}, but the answer of "accounts" has no data\.5 \(it/,
    );
    assert.equal(await customerExists(w.api, 'path-1'), true, 'the steps before it were sent');
    assert.equal(await customerExists(w.api, 'path-3'), false, 'the step after it was not');
  });

  it('a refused request exits 1 with the API error (code, field); nothing after it is sent', async () => {
    const w = await workspace();
    const file = fileOf('refused', {
      fixtures: [
        customer('customer', 'refused-1'),
        {
          name: 'bank',
          method: 'POST',
          path: '/customers/external-accounts',
          body: {
            customerId: '${customer:id}',
            currency: 'USD',
            accountInfo: {
              accountType: 'USD_ACCOUNT',
              accountNumber: '12',
              routingNumber: '021000021',
              beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada Lovelace' },
            },
          },
        },
        customer('later', 'refused-2'),
      ],
    });
    const result = await fixtures(w, [file]);
    assert.equal(result.code, 1, `exit 1\n${result.stdout}\n${result.stderr}`);
    assert.match(result.stderr, /step "bank" was refused: POST \/customers\/external-accounts: 400 INVALID_INPUT: /);
    assert.match(result.stderr, /"field":"accountInfo\.accountNumber"/, 'the field');
    assert.match(result.stdout, /^bank\s+POST\s+\/customers\/external-accounts\s+400\s+INVALID_INPUT$/m, 'its line');
    assert.equal(await customerExists(w.api, 'refused-1'), true, 'the step before it was sent');
    assert.equal(await customerExists(w.api, 'refused-2'), false, 'the step after it was not');
  });

  it('the commands and the example file of docs/sandbox.md work as written', {
    skip: engine === 'postgres' ? 'its commands use the preset credentials of the embedded sandbox' : false,
  }, async () => {
    const exported: Record<string, string> = {};
    const outputs: string[] = [];
    for (const line of readmeBlock('sh').split('\n')) {
      const command = line.replace(/#.*$/, '').trim();
      const assignment = /^export (\w+)=(\S+)$/.exec(command);
      if (assignment?.[1] && assignment[2]) exported[assignment[1]] = assignment[2];
      else if (command.startsWith('npx payouts ')) {
        const args = command.slice('npx payouts '.length).split(/\s+/);
        const result = await runCli(args, shellEnv(exported));
        assert.equal(result.code, 0, `${command}\n${result.stdout}\n${result.stderr}`);
        outputs.push(result.stdout);
      } else assert.equal(command, '', `a line the test knows: ${line}`);
    }
    assert.equal(outputs.length, 2, 'two commands');
    const [lines = '', json = ''] = outputs;
    const answers = JSON.parse(json) as Answers;
    assert.ok(lines.includes(answers.customer?.id ?? '?'), 'the second run answers with the first run’s customer');
    const api = client(server.baseUrl, {
      tokenId: PRESET.SANDBOX_TOKEN_ID,
      clientSecret: PRESET.SANDBOX_CLIENT_SECRET,
    });
    assert.equal(await count(api, '/customers?platformCustomerId=demo-ada'), 1, 'one demo customer');

    const example = fileOf('readme-example', readmeBlock('json'));
    const ran = await runCli(['fixtures', example, '--json'], shellEnv({ ...exported, USER_ID: 'readme-user' }));
    const funded = answersOf(ran).funding?.balance as { amount: number } | undefined;
    assert.equal(funded?.amount, 10000, 'the example file funds its customer');
  });
});
