import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { engine, migratedStore } from '../helpers/harness.ts';
import { recordStatements } from '../helpers/statements.ts';
import { InvariantError } from '../../src/domain/assert.ts';
import { statement } from '../../src/store/compiled.ts';
import { withinTransaction, type Tx } from '../../src/store/db.ts';
import { deferInsert, deferLedgerEntry, deferUpdate, withDeferredWrites } from '../../src/store/deferred-writes.ts';
import { RULES } from '../../src/store/rules.ts';
import type { Database } from '../../src/store/schema.ts';

// The store's contract (src/store/README.md): each rule broken on purpose, on either engine, fails by the
// rule's name rather than by a wrong row, a hang or a lock let go too early.
describe('the store contract: a rule broken fails by its name', () => {
  const store = migratedStore();
  const PLATFORM = 'plt_rules';

  /** The rejection is the named invariant, not whatever the broken rule would have led to. */
  const breaks = (rule: string) => (err: unknown) => {
    assert.ok(err instanceof InvariantError, `an InvariantError, not: ${String(err)}`);
    assert.ok(err.message.includes(rule), `the error names the rule "${rule}": ${err.message}`);
    return true;
  };
  const rename = statement((db, v: { id: string; name: string }) =>
    db.updateTable('platforms').set({ name: v.name }).where('id', '=', v.id),
  );
  const renameLater = (trx: Tx, name: string) =>
    deferUpdate(trx, { key: `platforms ${PLATFORM}`, update: rename, values: { id: PLATFORM, name } });
  const nameOf = async () =>
    (await store().db.selectFrom('platforms').select('name').where('id', '=', PLATFORM).executeTakeFirstOrThrow()).name;
  const job = (id: string): Database['jobs'] => ({
    id,
    platform_id: PLATFORM,
    environment: 'sandbox',
    kind: 'probe',
    payload: '{}',
    status: 'pending',
    run_at: 0n,
    lease_until: null,
    attempts: 0n,
    last_error: null,
    created_at: 0n,
    updated_at: 0n,
  });

  before(async () => {
    await store().db.insertInto('platforms').values({ id: PLATFORM, name: 'rules', created_at: 0n }).execute();
  });

  it(`${RULES.lastWrite}: a write after it fails, whether BEGIN was sent before it or not`, async () => {
    for (const writeBefore of [false, true]) {
      await assert.rejects(
        store()
          .db.transaction()
          .execute(async (trx) => {
            if (writeBefore) await rename.run(trx, { id: PLATFORM, name: 'before' });
            await withDeferredWrites(trx, (t) => renameLater(t, 'deferred'));
            await trx.updateTable('platforms').set({ name: 'after' }).where('id', '=', PLATFORM).execute();
          }),
        breaks(RULES.lastWrite),
        writeBefore ? 'BEGIN sent before the deferred write' : 'nothing written before the deferred write',
      );
      assert.notEqual(await nameOf(), 'after', 'the write after the last one never ran');
    }
    // Reads may follow it, and see what it wrote.
    const read = await store()
      .db.transaction()
      .execute(async (trx) => {
        await withDeferredWrites(trx, (t) => renameLater(t, 'read after'));
        return trx.selectFrom('platforms').select('name').where('id', '=', PLATFORM).executeTakeFirstOrThrow();
      });
    assert.equal(read.name, 'read after', 'a read after the last write sees it');
  });

  it(`${RULES.noReadBack}: a read or an update of a queued row by its id fails`, async () => {
    const readBack = (use: (trx: Tx, id: string) => Promise<unknown>) =>
      store().tx(async (trx) => {
        await deferInsert(trx, 'jobs', job('job_read_back'));
        await use(trx, 'job_read_back');
      });
    await assert.rejects(
      readBack((trx, id) => trx.selectFrom('jobs').select('id').where('id', '=', id).execute()),
      breaks(RULES.noReadBack),
      'a read',
    );
    await assert.rejects(
      readBack((trx, id) => trx.updateTable('jobs').set({ status: 'done' }).where('id', '=', id).execute()),
      breaks(RULES.noReadBack),
      'an update, which would match no row',
    );
    const queued = await store().db.selectFrom('jobs').select('id').where('id', '=', 'job_read_back').execute();
    assert.deepEqual(queued, [], 'neither transaction wrote its job');

    // The same id read from another table is no read-back; once a nested store.tx has written it, it reads.
    const seen = await store().tx((trx) =>
      withinTransaction(trx, async () => {
        await deferInsert(trx, 'jobs', job('job_nested'));
        await trx.selectFrom('events').select('id').where('object_id', '=', 'job_nested').execute();
        // A nested store.tx writes at its end everything queued so far, the outer transaction's too.
        await store().tx(async () => undefined);
        return store().db.selectFrom('jobs').select('id').where('id', '=', 'job_nested').execute();
      }),
    );
    assert.deepEqual(seen, [{ id: 'job_nested' }], 'written by the nested transaction’s end, then read');
  });

  it(`${RULES.dbNotCopied}: a copy taken outside an ambient transaction fails when used inside it`, async () => {
    const copied = store().db;
    const spread = { ...store() };
    for (const [how, db] of [
      ['kept in a variable', copied],
      ['a spread of the store', spread.db],
    ] as const) {
      await assert.rejects(
        store().tx((trx) => withinTransaction(trx, () => db.selectFrom('platforms').select('id').execute())),
        breaks(RULES.dbNotCopied),
        how,
      );
    }
    // Read where it is used, it is the ambient transaction and sees what that transaction wrote.
    const name = await store().tx((trx) =>
      withinTransaction(trx, async () => {
        await rename.run(trx, { id: PLATFORM, name: 'ambient' });
        return nameOf();
      }),
    );
    assert.equal(name, 'ambient', 'store.db read inside the ambient transaction goes through it');
  });

  it(`${RULES.movesOnPostgres}: a balance move deferred on SQLite fails`, {
    skip: engine === 'postgres' ? 'PostgreSQL defers balance moves (test/foundation/pg-lazy-begin.test.ts)' : false,
  }, async () => {
    const header = {
      id: 'jnl_rules',
      platform_id: PLATFORM,
      environment: 'sandbox' as const,
      kind: 'PROBE',
      reference: null,
    };
    const move = { accountId: 'acc_none', currency: 'USD', amount: 1n, atMs: 0n };
    await assert.rejects(
      store().tx((trx) => deferLedgerEntry(trx, { ...header, created_at: 0n }, [], [move])),
      breaks(RULES.movesOnPostgres),
    );
  });

  it(`${RULES.oneUpdatePerRow}: a second update of a row that does not merge fails`, async () => {
    await assert.rejects(
      store().tx(async (trx) => {
        await renameLater(trx, 'one');
        await renameLater(trx, 'two');
      }),
      breaks(RULES.oneUpdatePerRow),
    );
    const merged = (name: string) => ({
      key: `platforms ${PLATFORM}`,
      update: rename,
      values: { id: PLATFORM, name },
      merge: (a: { id: string; name: string }, b: { id: string; name: string }) => ({
        id: a.id,
        name: a.name + b.name,
      }),
    });
    await store().tx(async (trx) => {
      await deferUpdate(trx, merged('one '));
      await deferUpdate(trx, merged('two'));
    });
    assert.equal(await nameOf(), 'one two', 'two updates that merge are one update');
  });
});

// Lazy BEGIN (src/store/pg-lazy-begin.ts) tells a locking read by its node and its SQL; a lock taken with no
// BEGIN before it would be let go at the end of its own statement.
describe('a locking read holds its lock until commit, built or written as raw SQL', {
  skip:
    engine === 'postgres' ? false : 'SQLite takes its write lock at BEGIN IMMEDIATE: BEGIN is lazy on PostgreSQL only',
}, () => {
  const store = migratedStore();
  const PLATFORM = 'plt_locks';
  before(async () => {
    await store().db.insertInto('platforms').values({ id: PLATFORM, name: 'locks', created_at: 0n }).execute();
  });

  const reads: [string, (trx: Tx) => Promise<unknown>][] = [
    ['built', (trx) => trx.selectFrom('platforms').select('id').where('id', '=', PLATFORM).forUpdate().execute()],
    ['raw SQL', (trx) => sql`select "id" from "platforms" where "id" = ${PLATFORM} for update`.execute(trx)],
    ['raw SQL, for share', (trx) => sql`select id from platforms where id = ${PLATFORM} for share`.execute(trx)],
  ];
  for (const [how, lockingRead] of reads) {
    it(`${how}: BEGIN goes first, and another connection cannot take the row until COMMIT`, async () => {
      const statements = recordStatements();
      await store().tx(async (trx) => {
        await lockingRead(trx);
        // Outside any ambient transaction store.db is the pool: another connection.
        await assert.rejects(
          sql`select id from platforms where id = ${PLATFORM} for update nowait`.execute(store().db),
          (err: { code?: string }) => err.code === '55P03',
          'the row is still locked after the locking read’s own statement',
        );
      });
      const sent = statements.take().filter((s) => !s.endsWith('nowait'));
      assert.deepEqual(
        sent.map((s) => s.split(' ')[0]?.toLowerCase()),
        ['begin', 'select', 'commit'],
        sent.join('\n'),
      );
      await sql`select id from platforms where id = ${PLATFORM} for update nowait`.execute(store().db);
    });
  }
});
