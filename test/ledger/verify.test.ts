import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sql } from 'kysely';
import { useServer, type TestPlatform } from '../helpers/harness.ts';
import { verifyLedger } from '../../src/ledger/verify.ts';
import { isBalanced } from '../../src/ledger/journal.ts';
import { runCli } from '../helpers/processes.ts';

describe('ledger invariants', () => {
  let p: TestPlatform;
  const server = useServer();
  before(async () => {
    p = await server.platform();
  });

  it('isBalanced holds exactly when every currency nets to zero', () => {
    const posting = fc.record({
      accountId: fc.constantFrom('a', 'b', 'c'),
      currency: fc.constantFrom('USD', 'EUR'),
      amount: fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }),
    });
    fc.assert(
      fc.property(fc.array(posting, { maxLength: 8 }), (postings) => {
        // Appending the negated sum per currency always balances; removing any one non-zero posting from that
        // unbalances it.
        const sums = new Map<string, bigint>();
        for (const q of postings) sums.set(q.currency, (sums.get(q.currency) ?? 0n) + q.amount);
        const closing = [...sums].map(([currency, s]) => ({ accountId: 'z', currency, amount: -s }));
        const balanced = [...postings, ...closing];
        assert.equal(isBalanced(balanced), true);
        const i = balanced.findIndex((q) => q.amount !== 0n);
        if (i >= 0) assert.equal(isBalanced(balanced.filter((_, j) => j !== i)), false);
      }),
    );
  });

  it('names a balance that disagrees with its postings, through the API and the CLI', async () => {
    const account = (await p.api.get('/platform/internal-accounts?currency=GBP')).body.data[0];
    await p.api.post(`/sandbox/internal-accounts/${account.id}/fund`, { amount: 500 });
    assert.deepEqual(await verifyLedger(server.app.store), []);

    await sql`update ledger_accounts set balance = balance + 1 where id = ${account.id}`.execute(server.app.store.db);
    const violations = await verifyLedger(server.app.store);
    assert.equal(violations.length, 1);
    assert.equal(violations[0]!.invariant, 'balance-equals-postings');
    assert.match(violations[0]!.detail, new RegExp(account.id));

    const env = {
      ...process.env,
      DATA_DIR: server.config.dataDir,
      DATABASE_URL: server.config.databaseUrl ?? '',
      SECRET_KEY: server.config.secretKey.toString('hex'),
    };
    const verified = await runCli(['ledger', 'verify'], env);
    assert.equal(verified.code, 1, verified.stderr);
    assert.match(verified.stdout, /balance-equals-postings/);

    await sql`update ledger_accounts set balance = balance - 1 where id = ${account.id}`.execute(server.app.store.db);
    assert.deepEqual(await verifyLedger(server.app.store), []);
  });

  it('the database itself refuses a negative balance', async () => {
    const account = (await p.api.get('/platform/internal-accounts?currency=CAD')).body.data[0];
    await assert.rejects(
      sql`update ledger_accounts set balance = -1 where id = ${account.id}`.execute(server.app.store.db),
    );
  });
});
