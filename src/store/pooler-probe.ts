// Named prepared statements live on a PostgreSQL session. A pooler that hands one server session to
// several clients in turn (PgBouncer in transaction or statement mode) breaks them: one process's statement
// names collide with another's on a shared session ("prepared statement … already exists"), or a statement
// prepared on one session is missing on the next. The service cannot see the pooler's mode, so it watches
// for its effect before it prepares anything.
import pg from 'pg';

export class SharedSessionsError extends Error {}

const ROUNDS = 3;

const backendPid = async (client: pg.Client) =>
  (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid;

/**
 * Throws SharedSessionsError when two connections to DATABASE_URL are served by one PostgreSQL session.
 * Directly and through a session-mode pooler, a second connection always gets a session of its own, so a
 * match proves sharing; a pooler in transaction mode hands the session the first connection just let go to
 * the second one's transaction (PgBouncer reuses the last session released), so it is seen at once. The
 * proof is one-sided: a pooler that never reused a session here would go unseen, and the error line at
 * start (startup-errors.ts) still names the setting when its statements collide.
 */
export async function refuseSharedSessions(databaseUrl: string): Promise<void> {
  const [first, second] = [
    new pg.Client({ connectionString: databaseUrl }),
    new pg.Client({ connectionString: databaseUrl }),
  ];
  try {
    await first.connect();
    await second.connect();
    for (let round = 0; round < ROUNDS; round++) {
      const pid = await backendPid(first);
      let shared: boolean;
      try {
        await second.query('begin');
        shared = (await backendPid(second)) === pid;
        await second.query('rollback');
      } catch (err) {
        // Statement mode refuses transaction blocks outright: sessions are shared there too.
        if (/transaction blocks not allowed/i.test((err as Error).message)) shared = true;
        else throw err;
      }
      if (shared)
        throw new SharedSessionsError(
          'DATABASE_URL reaches PostgreSQL through a pooler that shares a server session between clients ' +
            '(PgBouncer in transaction mode): set DATABASE_PREPARED_STATEMENTS=false, or point DATABASE_URL ' +
            'past the pooler',
        );
    }
  } finally {
    await Promise.allSettled([first.end(), second.end()]);
  }
}
