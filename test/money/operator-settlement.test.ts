/**
 * The operator API: settle or fail many payments held by the production connector in one call, by id or
 * by filter, with a dry run, behind the operator's own credential. Over real HTTP, on the engine under test.
 */
import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { basicAuth, startServer, useServer, type TestPlatform } from '../helpers/harness.ts';
import { runDueJobs } from './fixtures.ts';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, runCliOk } from '../helpers/processes.ts';

const TOKEN = randomBytes(32).toString('hex');

describe('operator settlement at scale', () => {
  let p: TestPlatform;
  let usd: string;
  let bank: string;
  let customerId: string;

  const operator = async (body: unknown, authorization = `Bearer ${TOKEN}`) => {
    const res = await fetch(`${server.baseUrl}/operator/settlements`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  const balance = async () =>
    (await p.prod.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&currency=USD`)).body
      .data[0].balance.amount as number;
  const statusOf = async (id: string) => (await p.prod.get(`/transactions/${id}`)).body.status as string;
  const payOut = async (amount: number) =>
    (await p.prod.post('/transfer-out', { source: { accountId: usd }, destination: { accountId: bank }, amount })).body
      .id as string;

  const server = useServer({ OPERATOR_TOKEN: TOKEN, RUN_WORKERS: 'false' });
  before(async () => {
    p = await server.platform('operator');
    customerId = (await p.prod.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'op-1' })).body.id;
    usd = (await p.prod.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&currency=USD`))
      .body.data[0].id;
    bank = (
      await p.prod.post('/customers/external-accounts', {
        customerId,
        currency: 'USD',
        accountInfo: {
          accountType: 'USD_ACCOUNT',
          accountNumber: '000123456002',
          routingNumber: '021000021',
          beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Op User' },
        },
      })
    ).body.id;
    await server.app.services.externalAccounts.activate(bank);
  });

  it('refuses anyone without the operator token, platform credentials included', async () => {
    for (const authorization of ['', 'Bearer wrong', basicAuth(p.production), `Basic ${TOKEN}`]) {
      const res = await operator({ action: 'settle', ids: ['Transaction:x'] }, authorization);
      assert.deepEqual([res.status, res.body.code], [401, 'UNAUTHORIZED'], authorization);
      assert.match(res.body.message, /Bearer/);
    }
  });

  it('settles by id: a pull from the bank completes and funds the account', async () => {
    const pull = (
      await p.prod.post('/transfer-in', {
        source: { accountId: bank },
        destination: { accountId: usd },
        amount: 100_000,
      })
    ).body.id as string;
    await runDueJobs(server);
    assert.equal(await statusOf(pull), 'PROCESSING', 'held by the production connector');
    const res = await operator({ action: 'settle', ids: [pull] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.results, [{ id: pull, result: 'COMPLETED', status: 'COMPLETED' }]);
    assert.equal(await balance(), 100_000);
  });

  it('a dry run by filter changes nothing; then fail 10 and settle the rest by filter', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(await payOut(1_000));
    await runDueJobs(server);
    assert.equal(await balance(), 70_000, 'debited while in flight');

    const dry = await operator({ action: 'fail', filter: { status: 'PROCESSING' }, dryRun: true });
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.equal(dry.body.totals.WOULD_FAIL, 30);
    assert.deepEqual(dry.body.results.map((l: { id: string }) => l.id).sort(), [...ids].sort());
    assert.equal(await balance(), 70_000, 'a dry run moves nothing');
    assert.equal(await statusOf(ids[0]!), 'PROCESSING');

    const none = await operator({ action: 'fail', filter: { status: 'PROCESSING', olderThanSeconds: 3600 } });
    assert.deepEqual(none.body.results, [], 'none has been PROCESSING for an hour');

    const failed = await operator({
      action: 'fail',
      reason: 'INVALID_BANK_ACCOUNT',
      filter: { status: 'PROCESSING', limit: 10 },
    });
    assert.equal(failed.body.totals.FAILED, 10, JSON.stringify(failed.body));
    assert.ok(
      failed.body.results.every((l: { failureReason: string }) => l.failureReason === 'INVALID_BANK_ACCOUNT'),
      'each failed with the reason given',
    );
    assert.equal(await balance(), 80_000, 'the ten were refunded');

    const settled = await operator({ action: 'settle', filter: { status: 'PROCESSING', platformId: p.platformId } });
    assert.deepEqual(settled.body.totals, { COMPLETED: 20, FAILED: 0, WOULD_COMPLETE: 0, WOULD_FAIL: 0, REFUSED: 0 });
    assert.equal(await balance(), 80_000);
    for (const id of ids) assert.notEqual(await statusOf(id), 'PROCESSING', `${id} was resolved`);
  });

  it('names what it refused, line by line, and goes on with the rest', async () => {
    const fresh = await payOut(500);
    await runDueJobs(server);
    const done = (await p.prod.get('/transactions?status=COMPLETED&limit=1')).body.data[0].id as string;
    const res = await operator({ action: 'settle', ids: [done, 'Transaction:nope', fresh] });
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.results.map((l: { result: string; error?: { code: string } }) => [l.result, l.error?.code]),
      [
        ['REFUSED', 'CONFLICT'],
        ['REFUSED', 'TRANSACTION_NOT_FOUND'],
        ['COMPLETED', undefined],
      ],
    );
  });

  it('bad requests are 400s naming the field, and change nothing', async () => {
    const held = await payOut(100);
    await runDueJobs(server);
    const cases: [unknown, string][] = [
      [{ action: 'settle' }, 'ids'],
      [{ action: 'settle', ids: [held], filter: { status: 'PROCESSING' } }, 'ids'],
      [{ action: 'settle', ids: [held], reason: 'INVALID_BANK_ACCOUNT' }, 'reason'],
      [{ action: 'fail', ids: [held], reason: 'the bank said no' }, 'reason'],
      [{ action: 'refund', ids: [held] }, 'action'],
      [{ action: 'settle', filter: { status: 'COMPLETED' } }, 'filter.status'],
      [{ action: 'settle', ids: [held], extra: 1 }, 'extra'],
    ];
    for (const [body, field] of cases) {
      const res = await operator(body);
      assert.deepEqual([res.status, res.body.code, res.body.details?.field], [400, 'INVALID_INPUT', field], field);
    }
    assert.equal(await statusOf(held), 'PROCESSING', 'nothing moved');
    // Leaves nothing held for the tests that select by filter.
    assert.equal((await operator({ action: 'settle', ids: [held] })).body.totals.COMPLETED, 1);
  });

  it('the command line does the same: ids from a file, a filter, a dry run, a JSON line per payment', async () => {
    const env = {
      ...process.env,
      DATA_DIR: server.config.dataDir,
      DATABASE_URL: server.config.databaseUrl ?? '',
      SECRET_KEY: server.config.secretKey.toString('hex'),
    };
    const held = [await payOut(10), await payOut(20), await payOut(30)];
    await runDueJobs(server);
    const file = join(server.config.dataDir, 'ids.txt');
    writeFileSync(file, `${held[0]}\n${held[1]}\n`);
    const lines = (stdout: string) =>
      stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));

    const dry = await runCliOk(['transactions', 'fail', '--status', 'PROCESSING', '--dry-run'], env);
    assert.deepEqual(
      lines(dry.stdout).map((l) => [l.id, l.result]),
      held.map((id) => [id, 'WOULD_FAIL']),
    );
    assert.match(dry.stderr, /3 WOULD_FAIL/);
    assert.equal(await statusOf(held[0]!), 'PROCESSING', 'a dry run changes nothing');

    const byFile = await runCliOk(
      ['transactions', 'fail', '--ids-file', file, '--reason', 'INVALID_BANK_ACCOUNT'],
      env,
    );
    assert.deepEqual(
      lines(byFile.stdout).map((l) => [l.id, l.result, l.failureReason]),
      held.slice(0, 2).map((id) => [id, 'FAILED', 'INVALID_BANK_ACCOUNT']),
    );
    const rest = await runCliOk(['transactions', 'settle', '--status', 'PROCESSING', '--older-than', '0s'], env);
    assert.deepEqual(lines(rest.stdout), [{ id: held[2], result: 'COMPLETED', status: 'COMPLETED' }]);

    const refused = await runCli(['transactions', 'settle', held[0]!], env);
    assert.equal(refused.code, 1, 'a refusal exits 1');
    assert.match(refused.stderr, /only PROCESSING/);
    const usage = await runCli(['transactions', 'settle', held[0]!, '--status', 'PROCESSING'], env);
    assert.equal(usage.code, 2, usage.stderr);
    const badAge = await runCli(['transactions', 'settle', '--status', 'PROCESSING', '--older-than', 'soon'], env);
    assert.deepEqual([badAge.code, /--older-than takes an age/.test(badAge.stderr)], [2, true]);
  });

  it('is not served at all without OPERATOR_TOKEN', async () => {
    const plain = await startServer();
    try {
      const res = await fetch(`${plain.baseUrl}/operator/settlements`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: '{}',
      });
      assert.equal(res.status, 404);
    } finally {
      await plain.close();
    }
  });
});
