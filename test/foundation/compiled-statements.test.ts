import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { DefaultQueryCompiler } from 'kysely';
import { useServer } from '../helpers/harness.ts';
import { accountQuote, externalAccount, fundedCustomer, runDueJobs } from '../money/fixtures.ts';
import { statement } from '../../src/store/compiled.ts';
import type { Database } from '../../src/store/schema.ts';

// The money path's statements are built and compiled once per shape of their values, then run with each
// call's own values (src/store/compiled.ts). What must hold: every call reads and writes its own values,
// whatever ran before it, and a shape that changes the SQL gets SQL of its own.
describe('statements compiled once per shape', () => {
  const server = useServer({ RUN_WORKERS: 'false' });

  let builds = 0;
  const insertPlatforms = statement((db, rows: Database['platforms'][]) => {
    builds++;
    return db.insertInto('platforms').values(rows);
  });
  const platformsNamed = statement((db, v: { names: string[]; since: bigint }) => {
    builds++;
    return db
      .selectFrom('platforms')
      .select(['id', 'name', 'created_at'])
      .where('name', 'in', v.names)
      .where('created_at', '>=', v.since)
      .orderBy('id');
  });
  const row = (id: string, name: string, at: number) => ({ id, name, created_at: BigInt(at) });

  it('builds once per shape, and each call runs with its own values', async () => {
    const { db } = server.app.store;
    builds = 0;
    await insertPlatforms.run(db, [row('cs-a', 'first', 1), row('cs-b', 'second', 2)]);
    await insertPlatforms.run(db, [row('cs-c', 'third', 3), row('cs-d', 'fourth', 4)]);
    assert.equal(builds, 1, 'two rows each time: one shape, built once');
    await insertPlatforms.run(db, [row('cs-e', 'fifth', 5)]);
    assert.equal(builds, 2, 'one row is another shape');

    const read = (names: string[], since: number) => platformsNamed.rows(db, { names, since: BigInt(since) });
    assert.deepEqual(await read(['first', 'fourth'], 0), [row('cs-a', 'first', 1), row('cs-d', 'fourth', 4)]);
    assert.deepEqual(await read(['second', 'third'], 3), [row('cs-c', 'third', 3)], 'the second call’s own values');
    assert.deepEqual(await read(['fifth', 'first', 'second'], 2), [row('cs-b', 'second', 2), row('cs-e', 'fifth', 5)]);
    assert.equal(builds, 4, 'two and three names: two shapes of the read');
    assert.equal(await platformsNamed.first(db, { names: ['none'], since: 0n }), undefined);
  });

  it('a null, or a value left out, is part of the shape: the SQL it needs is built for it', async () => {
    const { db } = server.app.store;
    const byName = statement((q, v: { name: string | null }) =>
      q
        .selectFrom('platforms')
        .select('id')
        .where('id', 'like', 'cs-%')
        .where('name', v.name === null ? 'is' : '=', v.name),
    );
    assert.deepEqual(await byName.rows(db, { name: 'third' }), [{ id: 'cs-c' }]);
    assert.deepEqual(await byName.rows(db, { name: null }), [], 'is null, not = null');
    assert.deepEqual(await byName.rows(db, { name: 'first' }), [{ id: 'cs-a' }]);

    const renamed = statement((q, v: { id: string; name?: string | undefined; at?: bigint | undefined }) =>
      q.updateTable('platforms').set({ name: v.name, created_at: v.at }).where('id', '=', v.id),
    );
    await renamed.run(db, { id: 'cs-e', name: 'renamed' });
    await renamed.run(db, { id: 'cs-d', at: 40n });
    const rows = await platformsNamed.rows(db, { names: ['renamed', 'fourth'], since: 0n });
    assert.deepEqual(rows, [row('cs-d', 'fourth', 40), row('cs-e', 'renamed', 5)], 'each update set only its columns');
  });

  it('a builder that reads a value, or values that are not plain data, fail at once and cache nothing', async () => {
    const { db } = server.app.store;
    const reads = statement((q, v: { at: bigint }) =>
      q
        .selectFrom('platforms')
        .select('id')
        .where('created_at', '>', v.at > 0n ? v.at : 0n),
    );
    for (let i = 0; i < 2; i++) await assert.rejects(reads.rows(db, { at: 1n }), /read one of its values/);
    const dated = statement((q, v: { at: unknown }) =>
      q
        .selectFrom('platforms')
        .select('id')
        .where('created_at', '>', v.at as bigint),
    );
    await assert.rejects(dated.rows(db, { at: new Date() }), (err: Error) => {
      assert.ok(err instanceof TypeError, 'a TypeError');
      assert.match(err.message, /plain data, not Date/);
      return true;
    });
  });

  it('once warm, the money path builds no statement: transfer-out, quote, execute and the rail steps', async () => {
    const p = await server.platform('warm');
    const { customerId, accountId } = await fundedCustomer(p, 'USD', 1_000_000);
    const usd = await externalAccount(p, customerId, 'USD_ACCOUNT', '000');
    const eur = await externalAccount(p, customerId, 'EUR_ACCOUNT', '000');
    const built: string[] = [];
    const round = async () => {
      const quote = await accountQuote(p, accountId, eur, 100);
      assert.equal((await p.api.post(`/quotes/${quote.id}/execute`)).status, 200, 'executed');
      const body = { source: { accountId }, destination: { accountId: usd }, amount: 100 };
      assert.equal((await p.api.post('/transfer-out', body)).status, 201, 'transfer-out accepted');
      await runDueJobs(server);
    };
    // Kysely compiles every statement it builds; a compiled-once statement is compiled on its first run only.
    const compile = DefaultQueryCompiler.prototype.compileQuery;
    await round();
    DefaultQueryCompiler.prototype.compileQuery = function (this: DefaultQueryCompiler, ...args) {
      const query = Reflect.apply(compile, this, args);
      // The sandbox's request log is written in batches on a timer, off the money path.
      if (!/"sandbox_requests"/.test(query.sql)) built.push(query.sql);
      return query;
    } as typeof compile;
    try {
      await round();
    } finally {
      DefaultQueryCompiler.prototype.compileQuery = compile;
    }
    assert.deepEqual(built, [], `statements built on every call:\n${built.join('\n')}`);
  });
});
