// Who is using an embedded database's DATA_DIR. Every process that opens it (servers, CLI commands) holds a
// shared lock for as long as it runs; a restore takes the lock exclusively, so it never replaces files under
// a running server, and a server never starts in the middle of a restore. The lock is SQLite's own file lock
// on a small file of its own (DATA_DIR/payouts.lock): the operating system releases it when the process
// ends, however it ends, so a crash leaves nothing stale behind, and no pid file can point at another process.
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { OperatorError } from '../domain/errors.ts';

export const LOCK_FILE = 'payouts.lock';

/** Another process holds the lock in a way that excludes this one. */
export class DataDirBusyError extends OperatorError {}

function openLock(dataDir: string, waitMs: number): SqliteDatabase.Database {
  const lock = new SqliteDatabase(join(dataDir, LOCK_FILE));
  // The rollback journal, not WAL: only then does a reader's lock keep a writer (the restore) out.
  lock.pragma('journal_mode = DELETE');
  lock.pragma(`busy_timeout = ${waitMs}`);
  lock.exec('create table if not exists holder (x integer)');
  return lock;
}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
}

/**
 * Holds a shared lock on dataDir until release() (or the end of the process). Waits a few seconds for a
 * restore in progress, then throws DataDirBusyError.
 */
export function holdShared(dataDir: string, waitMs = 5000): { release(): void } {
  const lock = openLock(dataDir, waitMs);
  try {
    // A read transaction left open holds SQLite's SHARED lock on the file: many readers at once, no writer.
    lock.exec('begin');
    lock.prepare('select count(*) from holder').get();
  } catch (err) {
    lock.close();
    if (isBusy(err)) throw new DataDirBusyError(`${dataDir} is being restored: wait for the restore to finish`);
    throw err;
  }
  return {
    release() {
      if (lock.open) lock.close();
    },
  };
}

/**
 * Takes dataDir for this process alone, or throws DataDirBusyError at once when any other process (a
 * server, a CLI command) has it open.
 */
export function holdExclusive(dataDir: string): { release(): void } {
  const lock = openLock(dataDir, 0);
  try {
    lock.exec('begin exclusive');
  } catch (err) {
    lock.close();
    if (isBusy(err)) {
      throw new DataDirBusyError(
        `a server (or another payouts command) is using ${dataDir}: stop every payouts process on it first`,
      );
    }
    throw err;
  }
  return {
    release() {
      if (lock.open) {
        lock.exec('rollback');
        lock.close();
      }
    },
  };
}
