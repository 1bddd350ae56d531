// The recorded ledger check of each platform environment (ledger/checks.ts): worker upkeep checks the scopes
// that are due and leaves the rest alone, a check of one scope reads only that scope, and two checks of
// one scope never run at once.
import assert from 'node:assert/strict';
import { before, describe, it } from '../helpers/node-test.ts';
import { useServer, type TestPlatform } from '../helpers/harness.ts';
import { checkDueLedgers, checkLedgerNow, lastLedgerCheck } from '../../src/ledger/checks.ts';

describe('recorded ledger checks', () => {
  let p: TestPlatform;
  // No background worker: the test runs the upkeep itself, so it knows when it ran.
  const server = useServer({ RUN_WORKERS: 'false' });
  before(async () => {
    p = await server.platform('checked');
  });

  const scopeOf = (environment: 'sandbox' | 'production') => ({ platformId: p.platformId, environment });

  it('upkeep checks every platform environment not checked lately, then none until they are due again', async () => {
    const { ctx } = server.app.services;
    assert.equal(await lastLedgerCheck(ctx.store, scopeOf('sandbox')), undefined, 'nothing recorded at first');
    assert.ok((await checkDueLedgers(ctx)) >= 2, "the new platform's two environments were due");
    for (const environment of ['sandbox', 'production'] as const) {
      const check = await lastLedgerCheck(ctx.store, scopeOf(environment));
      assert.ok(check, `${environment} has a recorded check`);
      assert.equal(check.violationCount, 0, `${environment} balances`);
    }
    const recorded = await lastLedgerCheck(ctx.store, scopeOf('sandbox'));
    assert.equal(await checkDueLedgers(ctx), 0, 'a second pass right after finds nothing due');
    assert.deepEqual(await lastLedgerCheck(ctx.store, scopeOf('sandbox')), recorded, 'and records nothing new');
  });

  it("names the scope's own problems only, and runs one check of a scope at a time", async () => {
    const { ctx } = server.app.services;
    const other = await server.platform('other');
    const { db } = server.app.store;
    const account = await db
      .selectFrom('ledger_accounts')
      .select(['id', 'balance'])
      .where('platform_id', '=', other.platformId)
      .where('environment', '=', 'sandbox')
      .where('kind', '=', 'PLATFORM')
      .executeTakeFirstOrThrow();
    const setBalance = (balance: bigint) =>
      db.updateTable('ledger_accounts').set({ balance }).where('id', '=', account.id).execute();
    await setBalance(account.balance + 7n);
    try {
      const broken = await checkLedgerNow(ctx, { platformId: other.platformId, environment: 'sandbox' });
      assert.equal(broken?.violationCount, 1, 'the account whose balance is off');
      assert.match(broken?.violations[0]?.detail ?? '', new RegExp(`account ${account.id} stores`), 'named');
      const mine = await checkLedgerNow(ctx, scopeOf('sandbox'));
      assert.equal(mine?.violationCount, 0, "another platform's broken balance is not this one's problem");

      // A check that started and has not finished (another process's) is left to finish.
      await db
        .updateTable('ledger_checks')
        .set({ started_at: BigInt(Date.now() + 60_000) })
        .where('platform_id', '=', p.platformId)
        .where('environment', '=', 'sandbox')
        .execute();
      assert.equal(await checkLedgerNow(ctx, scopeOf('sandbox')), undefined, 'no second check of a scope at once');
    } finally {
      await setBalance(account.balance);
    }
    const repaired = await checkLedgerNow(ctx, { platformId: other.platformId, environment: 'sandbox' });
    assert.equal(repaired?.violationCount, 0, 'the repaired ledger checks balanced');
  });
});
