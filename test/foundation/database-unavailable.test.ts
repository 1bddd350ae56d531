/**
 * Which failures mean "the database is away right now" (store/unavailable.ts): those become a 503 the
 * client may retry, pause the job worker, and name the database at start-up. Everything else keeps its
 * answer: a bug stays a 500, on both engines. test/operations/database-outage.test.ts takes a real
 * PostgreSQL away under load.
 */
import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { toErrorBody } from '../../src/http/server.ts';
import { databaseUnavailable } from '../../src/store/unavailable.ts';
import { describeStartupError } from '../../src/startup-errors.ts';
import { freePort } from '../helpers/processes.ts';

const withCode = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

const OUTAGES: Record<string, Error> = {
  'the server shutting down (57P01)': withCode('57P01', 'terminating connection due to administrator command'),
  'the server starting (57P03)': withCode('57P03', 'the database system is starting up'),
  'a connection exception (08006)': withCode('08006', 'connection failure'),
  'the database missing (3D000)': withCode('3D000', 'database "payouts" does not exist'),
  'too many connections (53300)': withCode('53300', 'sorry, too many clients already'),
  'a database refusing connections (55000)': withCode(
    '55000',
    'database "payouts" is not currently accepting connections',
  ),
  'a reset connection': withCode('ECONNRESET', 'read ECONNRESET'),
  'a connection that ended': new Error('Connection terminated unexpectedly'),
  'a client that lost its connection': new Error('Client has encountered a connection error and is not queryable'),
  'no connection in time': new Error('timeout exceeded when trying to connect'),
  'every address refused': new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], 'refused'),
  'a cause that is one': new Error('query failed', { cause: withCode('57P01') }),
};

describe('database unavailable', () => {
  for (const [what, err] of Object.entries(OUTAGES)) {
    it(`${what} is an outage: 503 SERVICE_UNAVAILABLE`, () => {
      assert.equal(databaseUnavailable(err), true, `${what} is recognised`);
      const body = toErrorBody(err);
      assert.deepEqual(
        [body.status, body.code, body.details?.reason],
        [503, 'SERVICE_UNAVAILABLE', 'DATABASE_UNAVAILABLE'],
        `${what} answers 503 with its reason`,
      );
    });
  }

  it('a real refused connection is an outage, and start-up names the database it could not reach', async () => {
    const port = await freePort();
    const refused = await new pg.Client({ host: '127.0.0.1', port }).connect().then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.equal(databaseUnavailable(refused), true, 'a refused connection is recognised');
    const url = `postgres://u:p@127.0.0.1:${port}/payouts`;
    const said = describeStartupError(refused, { host: '127.0.0.1', port: 8080, databaseUrl: url });
    assert.match(String(said), new RegExp(`cannot reach the database at 127\\.0\\.0\\.1:${port}/payouts`));
  });

  it('other failures keep their answer: bad data, conflicts and bugs are not outages', () => {
    const sqlite = new SqliteDatabase(':memory:');
    sqlite.exec('create table t (id integer primary key)');
    sqlite.exec('insert into t values (1)');
    let constraint: unknown;
    try {
      sqlite.exec('insert into t values (1)');
    } catch (err) {
      constraint = err;
    }
    sqlite.close();
    const others: unknown[] = [
      constraint,
      withCode('23505', 'duplicate key value violates unique constraint'),
      withCode('40001', 'could not serialize access'),
      withCode('22P02', 'invalid input syntax'),
      new TypeError("Cannot read properties of undefined (reading 'id')"),
      undefined,
    ];
    for (const err of others) {
      assert.equal(databaseUnavailable(err), false, `${String(err)} is not an outage`);
      if (err instanceof Error) assert.equal(toErrorBody(err).status, 500, `${err.message} stays a 500`);
    }
  });
});
