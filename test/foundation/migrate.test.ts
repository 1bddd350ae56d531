// Every process migrates its database when it starts, so several may migrate one new database at once;
// behind a pooler too (test/operations/pooler.test.ts). Both engines, with real processes.
import { after, before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createTestDatabase, engine, type TestDatabase } from '../helpers/harness.ts';
import { runCli } from '../helpers/processes.ts';
import { openStore, type Store } from '../../src/store/db.ts';
import { migrate, UnknownMigrationError } from '../../src/store/migrate.ts';
import { migrations } from '../../src/store/migrations/index.ts';

async function appliedNames(store: Store): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(store.db);
  return rows.map((row) => row.name);
}

describe(`migrations (${engine})`, () => {
  let database: TestDatabase;
  let store: Store;
  const all = Object.keys(migrations).sort();
  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => {
    await store?.close();
    await database.drop();
  });

  it('four processes migrating one new database at once: all succeed, each migration applied once', async () => {
    const env = { ...process.env, ...database.env };
    const runs = await Promise.all(Array.from({ length: 4 }, () => runCli(['migrate'], env, 120_000)));
    assert.deepEqual(
      runs.map((run) => run.code),
      [0, 0, 0, 0],
      runs.map((run) => run.stderr).join('\n'),
    );
    const applied = runs.flatMap((run) => /^applied: (.*)$/m.exec(run.stdout)?.[1]?.split(', ') ?? []);
    assert.deepEqual(
      applied.sort(),
      all,
      `every migration applied by exactly one of them:\n${runs.map((r) => r.stdout).join('')}`,
    );
    store = openStore({ dataDir: database.env.DATA_DIR!, databaseUrl: database.env.DATABASE_URL });
    assert.deepEqual(await appliedNames(store), all, 'each recorded once');
    assert.deepEqual(await migrate(store), [], 'a later start has nothing to do');
  });

  it('refuses a database migrated by a newer release, naming the migration, and changes nothing', async () => {
    await sql`insert into kysely_migration (name, timestamp) values ('999_from_the_future', 'x')`.execute(store.db);
    await assert.rejects(migrate(store), (err: Error) => {
      assert.ok(err instanceof UnknownMigrationError, String(err));
      assert.match(err.message, /999_from_the_future/);
      return true;
    });
    const cli = await runCli(['migrate'], { ...process.env, ...database.env });
    assert.equal(cli.code, 1, cli.stderr);
    // After the line naming the database, one line that says what is wrong: no stack.
    const said = cli.stderr.trim().split('\n').slice(1);
    assert.equal(said.length, 1, cli.stderr);
    assert.match(
      said[0]!,
      /^payouts: the database holds migrations this version does not know \(999_from_the_future\)/,
    );
    assert.deepEqual(await appliedNames(store), [...all, '999_from_the_future']);
  });
});
