import { after, before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { Migrator, sql } from 'kysely';
import { createTestDatabase, engine, type TestDatabase } from '../helpers/harness.ts';
import { openStore, type Store } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { migrations } from '../../src/store/migrations/index.ts';

const event = {
  platform_id: 'Platform:1',
  environment: 'sandbox' as const,
  type: 'OUTGOING_PAYMENT.REFUND_COMPLETED',
  object_id: 'Transaction:1',
  data: '{"id":"Transaction:1"}',
  created_at: 1000n,
  delivery_state: 'DELIVERED' as const,
  delivery_run: 2n,
  delivery_updated_at: 2000n,
};
const attempt = { run: 1n, attempt: 1n, url: 'http://x', started_at: 1n, latency_ms: 3n };

/** A database migrated up to 010 holding two events (one PENDING) and an attempt of the first. */
async function seedBeforeTheChange(store: Store): Promise<void> {
  const migrator = new Migrator({ db: store.db, provider: { getMigrations: async () => migrations } });
  const first = await migrator.migrateTo('010_idempotency_expiry');
  assert.equal(first.error, undefined, `migrated to 010: ${String(first.error)}`);
  await store.db
    .insertInto('events')
    .values([
      { ...event, id: 'Webhook:a' },
      { ...event, id: 'Webhook:b', delivery_state: 'PENDING', delivery_updated_at: null },
    ])
    .execute();
  await store.db
    .insertInto('webhook_attempts')
    .values({ ...attempt, event_id: 'Webhook:a', status_code: 200n, error: null, response_body: 'ok' })
    .execute();
}

/**
 * The migration that adds NOT_IN_ENVELOPE rewrites the delivery state's CHECK constraint, which on SQLite
 * means rebuilding the events table under webhook_attempts' foreign key. A database that already holds
 * events and attempts keeps them, the new state is accepted, unknown states and orphan attempts are not.
 */
describe('the NOT_IN_ENVELOPE migration over existing events', () => {
  let database: TestDatabase;
  let store: Store;
  before(async () => {
    database = await createTestDatabase();
    store = openStore({ dataDir: database.env.DATA_DIR!, databaseUrl: database.env.DATABASE_URL });
  });
  after(async () => {
    await store.close();
    await database.drop();
  });

  it('keeps every event and attempt, accepts the new state and still refuses bad rows', async () => {
    await seedBeforeTheChange(store);

    const applied = await migrate(store);
    assert.equal(applied[0], '011_delivery_not_in_envelope', 'the migration runs first, then any later ones');

    const rows = await store.db.selectFrom('events').selectAll().orderBy('id').execute();
    assert.deepEqual(
      rows.map((r) => [r.id, r.delivery_state, Number(r.delivery_run), r.data]),
      [
        ['Webhook:a', 'DELIVERED', 2, event.data],
        ['Webhook:b', 'PENDING', 2, event.data],
      ],
      'the events are kept as they were',
    );
    const attempts = await store.db.selectFrom('webhook_attempts').select(['event_id', 'response_body']).execute();
    assert.deepEqual(attempts, [{ event_id: 'Webhook:a', response_body: 'ok' }], 'the attempt is kept');

    const moved = await store.db
      .updateTable('events')
      .set({ delivery_state: 'NOT_IN_ENVELOPE' })
      .where('id', '=', 'Webhook:b')
      .executeTakeFirst();
    assert.equal(moved.numUpdatedRows, 1n, 'the new state is accepted');
    await assert.rejects(
      store.db
        .updateTable('events')
        .set({ delivery_state: 'LOST' as never })
        .where('id', '=', 'Webhook:b')
        .execute(),
      'an unknown state is still refused',
    );
    await assert.rejects(
      store.db
        .insertInto('webhook_attempts')
        .values({ ...attempt, event_id: 'Webhook:none', status_code: null, error: null, response_body: null })
        .execute(),
      'an attempt of a missing event is still refused (the foreign key survived the rebuild)',
    );
    if (engine === 'sqlite') {
      const indexes = await sql<{ name: string }>`
        select name from sqlite_master where type = 'index' and tbl_name = 'events' and sql is not null
        order by name`.execute(store.db);
      assert.deepEqual(
        indexes.rows.map((r) => r.name),
        ['events_delivery_failed', 'events_object', 'events_object_state', 'events_scope_page'],
        'the rebuilt table has its indexes back (and 020 its partial index of failed deliveries)',
      );
    }
  });
});
