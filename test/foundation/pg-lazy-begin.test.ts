import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { engine, useServer, type TestPlatform } from '../helpers/harness.ts';
import { recordStatements, type StatementLog } from '../helpers/statements.ts';
import { postEntry } from '../../src/ledger/journal.ts';
import { systemAccountId } from '../../src/ledger/accounts.ts';
import { AppError } from '../../src/domain/errors.ts';
import { externalAccount, fundedCustomer } from '../money/fixtures.ts';

// On PostgreSQL BEGIN is sent only before a transaction's first statement that writes or locks, and a
// transaction whose writes all ride in its last statement sends neither BEGIN nor COMMIT
// (src/store/pg-lazy-begin.ts). What must still hold: a transaction is all or nothing.
describe('transactions on PostgreSQL send BEGIN late and only when needed', {
  skip: engine === 'postgres' ? false : 'PostgreSQL driver only',
}, () => {
  let p: TestPlatform;
  let statements: StatementLog;
  const count = async (table: 'probe' | 'journal_entries' | 'transactions') =>
    Number(
      (await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}`.execute(server.app.store.db)).rows[0]!.n,
    );

  const server = useServer({ RUN_WORKERS: 'false' });
  before(async () => {
    p = await server.platform();
    await sql`create table probe (id int primary key)`.execute(server.app.store.db);
    statements = recordStatements();
  });

  it('a transaction that only reads sends neither BEGIN nor COMMIT', async () => {
    statements.take();
    await server.app.store.tx((trx) => trx.selectFrom('platforms').select('id').execute());
    assert.deepEqual(statements.take(), ['select "id" from "platforms"']);
  });

  it('a write or a locking read sends BEGIN before it; a failure after it rolls it back', async () => {
    statements.take();
    await assert.rejects(
      server.app.store.tx(async (trx) => {
        await trx.selectFrom('platforms').select('id').execute();
        await sql`insert into probe values (1)`.execute(trx);
        throw new Error('after the write');
      }),
      /after the write/,
    );
    assert.deepEqual(
      statements.take().map((s) => s.split(' ')[0]),
      ['select', 'begin', 'insert', 'rollback'],
      'the read ran before BEGIN, the write after it',
    );
    assert.equal(await count('probe'), 0, 'the write was rolled back');
    statements.take();
    await server.app.store.tx((trx) => trx.selectFrom('platforms').select('id').forUpdate().execute());
    assert.deepEqual(
      statements.take().map((s) => s.split(' ')[0]),
      ['begin', 'select', 'commit'],
    );
  });

  it('writes deferred to the last statement run without BEGIN and are all or nothing', async () => {
    const { accountId } = await fundedCustomer(p, 'USD', 100);
    const scope = { platformId: p.platformId, environment: 'sandbox' as const };
    const clearing = systemAccountId(scope, 'SETTLEMENT', 'USD');
    const entry = (amount: bigint) => ({
      kind: 'PROBE',
      reference: null,
      postings: [
        { accountId, currency: 'USD', amount: -amount },
        { accountId: clearing, currency: 'USD', amount },
      ],
    });
    const initial = await count('journal_entries');
    // The sandbox request log writes the requests above in a transaction of its own, on a timer: written now, so
    // that none of it falls inside the window (under load its COMMIT did).
    await server.app.services.sandboxRequests.flush();
    statements.take();
    await server.app.store.tx((trx) => postEntry(trx, scope, entry(40n), Date.now()));
    const sent = statements.take();
    assert.equal(sent.length, 1, `one statement, no BEGIN or COMMIT:\n${sent.join('\n')}`);
    assert.equal(await count('journal_entries'), initial + 1);

    // A debit past the balance fails the one statement: the entry written in it is not there either.
    const rejected = await server.app.store
      .tx((trx) => postEntry(trx, scope, entry(61n), Date.now()))
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    assert.ok(rejected instanceof AppError, String(rejected));
    assert.equal(rejected.code, 'INSUFFICIENT_BALANCE');
    assert.deepEqual(rejected.details, { accountId });
    assert.equal(await count('journal_entries'), initial + 1, 'nothing of the refused entry was written');
  });

  it('a posting whose balance move matched no row fails its statement: no posting without its move', async () => {
    const { accountId } = await fundedCustomer(p, 'USD', 100);
    const scope = { platformId: p.platformId, environment: 'sandbox' as const };
    const initial = await count('journal_entries');
    // The account holds USD; a EUR posting on it matches no balance row.
    const wrongCurrency = {
      kind: 'PROBE',
      reference: null,
      postings: [
        { accountId, currency: 'EUR', amount: 10n },
        { accountId: systemAccountId(scope, 'SETTLEMENT', 'EUR'), currency: 'EUR', amount: -10n },
      ],
    };
    await assert.rejects(server.app.store.tx((trx) => postEntry(trx, scope, wrongCurrency, Date.now())));
    assert.equal(await count('journal_entries'), initial);
  });

  it('a transfer-out answers INSUFFICIENT_BALANCE and writes nothing when the balance is short', async () => {
    const { customerId, accountId } = await fundedCustomer(p, 'USD', 50);
    const destination = await externalAccount(p, customerId, 'USD_ACCOUNT', '000');
    const initial = await count('transactions');
    const res = await p.api.post('/transfer-out', {
      source: { accountId },
      destination: { accountId: destination },
      amount: 51,
    });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.code, 'INSUFFICIENT_BALANCE');
    assert.equal(await count('transactions'), initial, 'no payment row');
  });
});
