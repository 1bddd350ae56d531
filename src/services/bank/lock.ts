// One export per connector at a time, across processes: an exclusive SQLite lock on a small file in the
// connector's outbox (the folder the exports write to, shared by every process that exports there). The
// operating system lets go of it when the process ends, however it ends, so a process killed mid-export
// leaves nothing stale for the next one to wait out. It is only an economy: the database makes a payment's
// release happen once whatever the lock says (export.ts claims payments with a conditional update).
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';

export interface ExportLock {
  release(): void;
}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
}

/** Takes the outbox's export lock at once, or answers undefined when another export holds it. */
export function tryExportLock(outbox: string): ExportLock | undefined {
  // No waiting at all (better-sqlite3 waits 5 s by default, blocking the event loop): busy is an answer.
  const lock = new SqliteDatabase(join(outbox, '.tmp', 'export.lock'), { timeout: 0 });
  try {
    // The rollback journal: an EXCLUSIVE transaction then shuts every other connection out, readers too.
    lock.pragma('journal_mode = DELETE');
    lock.exec('begin exclusive');
  } catch (err) {
    lock.close();
    if (isBusy(err)) return undefined;
    throw err;
  }
  return {
    release() {
      if (lock.open) lock.close();
    },
  };
}
