// A database server set up in a way that slowly costs the service (PostgreSQL without autovacuum) is named
// in the log when `payouts serve` starts, instead of showing only as throughput that sinks over hours. The
// setting is read from the server the suite runs on, so the test holds wherever it runs: the warning is
// there exactly when the setting is off.
import { after, before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createTestDatabase, engine, type TestDatabase } from '../helpers/harness.ts';
import { spawnServer, type ServerProcess } from '../helpers/processes.ts';
import { waitFor } from '../helpers/wait.ts';

interface LogLine {
  level: number;
  msg: string;
}

describe('advice on the database server at start', () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let lines: LogLine[];

  before(async () => {
    database = await createTestDatabase();
    server = await spawnServer({ ...database.env, LOG_LEVEL: 'info' });
    await waitFor(async () => server.stdout().includes('payouts service ready'), 'the ready line', 30_000);
    lines = server
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
  });
  after(async () => {
    await server?.stop();
    await database?.drop();
  });

  const autovacuumWarnings = () => lines.filter((line) => /autovacuum is off/.test(line.msg));

  it('warns once, before it is ready, when PostgreSQL runs without autovacuum; says nothing otherwise', async () => {
    let off = false;
    if (engine === 'postgres') {
      const probe = new pg.Client({ connectionString: database.env.DATABASE_URL });
      await probe.connect();
      try {
        off = (await probe.query<{ autovacuum: string }>('show autovacuum')).rows[0]?.autovacuum === 'off';
      } finally {
        await probe.end();
      }
    }
    const warnings = autovacuumWarnings();
    assert.equal(warnings.length, off ? 1 : 0, server.output());
    if (off) {
      assert.equal(warnings[0]!.level, 40, 'a warning');
      const ready = lines.findIndex((line) => line.msg === 'payouts service ready');
      assert.ok(lines.indexOf(warnings[0]!) < ready, 'before the ready line');
    }
  });
});
