/**
 * The embedded database's connection settings, seen from outside SQLite. Each transaction of a group commit
 * runs in its own savepoint, and SQLite keeps the page images a savepoint may roll back to in a sub-journal.
 * Left to SQLite's default that sub-journal spilled into a temporary file once it passed 64 KiB: a write
 * system call per page, a tenth of a loaded server's CPU (docs/performance.md, *What moved the figures*). The
 * files a process holds open tell whether it did: SQLite names its temporary files `etilqs_…`.
 */
import { after, before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store, type TxOptions } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';

/** What this process's open file descriptors point at (Linux). */
function openFiles(): string[] {
  const fds = '/proc/self/fd';
  return readdirSync(fds).flatMap((fd) => {
    try {
      return [readlinkSync(join(fds, fd))];
    } catch {
      return []; // closed between the listing and the read
    }
  });
}

describe('the embedded database connection', { skip: !existsSync('/proc/self/fd') && 'needs /proc' }, () => {
  let dataDir: string;
  let store: Store;
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'payouts-sqlite-settings-'));
    store = openStore({ dataDir });
    await migrate(store);
  });
  after(async () => {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The files open while a transaction rewrites about 400 KiB of pages that existed before it began. */
  let rewrites = 0;
  async function openDuringRewrite(options?: TxOptions): Promise<string[]> {
    // A new value each time: SQLite leaves alone a page that would not change.
    const body = String(++rewrites).repeat(4_000);
    return store.tx(async (trx) => {
      // Their old images are what the savepoint keeps: far past the size at which SQLite's default spills them.
      await trx.updateTable('idempotency_keys').set({ response_body: body }).execute();
      return openFiles();
    }, options);
  }
  const temporaryFiles = (files: string[]) => files.filter((file) => file.includes('etilqs_'));

  it('keeps a group commit savepoint’s page images in memory, never in a temporary file', async () => {
    const rows = Array.from({ length: 100 }, (_, i) => ({
      platform_id: 'Platform:settings',
      environment: 'sandbox' as const,
      operation: 'test',
      key: `key-${i}`,
      request_hash: 'hash',
      response_status: 200n,
      response_body: 'x'.repeat(4_000),
      created_at: 0n,
    }));
    await store.tx((trx) => trx.insertInto('idempotency_keys').values(rows).execute());
    const during = await openDuringRewrite();
    assert.ok(
      during.some((file) => file.endsWith('payouts.sqlite')),
      `the check sees the database's own file among the open ones: ${during.join(', ')}`,
    );
    assert.deepEqual(temporaryFiles(during), [], 'no temporary file was open while the savepoint held its changes');
  });

  it('keeps a bulk transaction’s page images in a temporary file, and the next one’s in memory again', async () => {
    // A workspace reset holds an image of every page it deletes: in memory, as much as the workspace itself.
    assert.equal(temporaryFiles(await openDuringRewrite({ bulk: true })).length, 1, 'the bulk one spilled to disk');
    assert.deepEqual(temporaryFiles(await openDuringRewrite()), [], 'the next transaction keeps them in memory');
  });
});
