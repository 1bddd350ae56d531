/**
 * kill -9 of `payouts bank export` in the middle of its work, three times at three different moments (a file
 * being written or validated, just after a release committed, just after a file was placed), then an export
 * that runs to its end: no file is lost or released twice, no payment is moved twice, every released file
 * is in the outbox whole (its recorded sha256), and the ledger verifies. Real processes, on the engine under test.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { transactionIdOfEndToEnd } from '../../src/rails/iso20022/ids.ts';
import { createTestDatabase, startServer, type TestDatabase, type TestServer } from '../helpers/harness.ts';
import { after, before, describe, it } from '../helpers/node-test.ts';
import { runCliOk, spawnDaemon } from '../helpers/processes.ts';
import { tempDir } from '../helpers/temp-dirs.ts';
import { waitFor } from '../helpers/wait.ts';
import { bankConnectorsFile, eurPayout, fundedEurCustomer, type BankFolders } from './fixtures.ts';

const PAYOUTS = 60;
const PER_FILE = 6;
const xmlIn = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.xml'));

describe('kill -9 during a bank export', () => {
  let database: TestDatabase;
  let folders: BankFolders;
  let env: Record<string, string>;
  let server: TestServer | undefined;
  const ids: string[] = [];

  before(async () => {
    database = await createTestDatabase();
    folders = bankConnectorsFile(tempDir('bank-crash'), { maxPaymentsPerFile: PER_FILE });
    env = { ...database.env, CONNECTORS_FILE: folders.file };
    const first = await startServer(env, { database });
    try {
      const p = await first.platform('crash');
      const payer = await fundedEurCustomer(first, p, 10_000_000);
      for (let i = 0; i < PAYOUTS; i++) ids.push(await eurPayout(first, p, payer, 1_000 + i));
    } finally {
      await first.close();
    }
  });
  after(async () => {
    await server?.close();
    await database?.drop();
  });

  /** The export as its own process, killed -9 the moment `when` holds (or left to finish first). */
  async function exportKilledWhen(when: () => Promise<boolean>, what: string): Promise<boolean> {
    const vars = Object.entries({ ...env, PATH: process.env.PATH ?? '' }).map(([k, v]) => `${k}=${v}`);
    try {
      const daemon = await spawnDaemon(
        'env',
        ['-i', ...vars, process.execPath, '--import', 'tsx', 'src/main.ts', 'bank', 'export'],
        when,
        what,
        120_000,
      );
      process.kill(daemon.pid, 'SIGKILL');
      await waitFor(() => daemon.ended() !== null, 'the killed export to be gone');
      return true;
    } catch (err) {
      // It finished before the moment came: nothing to kill.
      if (/exited with 0/.test((err as Error).message)) return false;
      throw err;
    }
  }

  it('leaves no file lost or released twice, and moves each payment once', { timeout: 600_000 }, async () => {
    server = await startServer({ ...env, RUN_WORKERS: 'false' }, { database });
    const { db } = server.app.store;
    const released = async () =>
      Number(
        (
          await db
            .selectFrom('bank_files')
            .select((eb) => eb.fn.countAll<bigint>().as('n'))
            .where('state', '=', 'RELEASED')
            .executeTakeFirstOrThrow()
        ).n,
      );
    const kills: boolean[] = [];
    kills.push(await exportKilledWhen(async () => xmlIn(join(folders.outbox, '.tmp')).length > 0, 'a file in .tmp'));
    const atRelease = (await released()) + 1;
    kills.push(await exportKilledWhen(async () => (await released()) >= atRelease, 'a release committed'));
    const placed = xmlIn(folders.outbox).length + 1;
    kills.push(await exportKilledWhen(async () => xmlIn(folders.outbox).length >= placed, 'a file placed'));
    assert.ok(kills.some(Boolean), `at least one export was killed mid-way (${kills.join(', ')})`);
    await runCliOk(['bank', 'export'], { ...process.env, ...env }, 120_000);

    const files = await db.selectFrom('bank_files').selectAll().where('direction', '=', 'OUT').execute();
    assert.ok(
      files.every((f) => f.state === 'RELEASED' && f.applied_at !== null),
      'every file released and placed',
    );
    assert.equal(
      files.reduce((n, f) => n + Number(f.nb_of_txs), 0),
      PAYOUTS,
      'every payment in exactly one recorded file',
    );
    const outbox = xmlIn(folders.outbox);
    assert.deepEqual(outbox.sort(), files.map((f) => f.name).sort(), 'each released file in the outbox, once');
    assert.deepEqual(xmlIn(join(folders.outbox, '.tmp')), [], 'no temp file left');
    const inFiles: (string | undefined)[] = [];
    for (const file of files) {
      const bytes = readFileSync(join(folders.outbox, file.name));
      assert.equal(createHash('sha256').update(bytes).digest('hex'), file.sha256, `${file.name} whole`);
      for (const m of bytes.toString('utf8').matchAll(/<EndToEndId>([^<]+)<\/EndToEndId>/g))
        inFiles.push(transactionIdOfEndToEnd(m[1] ?? ''));
    }
    assert.equal(inFiles.length, PAYOUTS, 'no payment in two files');
    assert.deepEqual(new Set(inFiles), new Set(ids));
    for (const id of ids) {
      const row = await db.selectFrom('transactions').select('status').where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(row.status, 'PROCESSING', id);
      const moves = await db
        .selectFrom('events')
        .select('type')
        .where('object_id', '=', id)
        .where('type', '=', 'OUTGOING_PAYMENT.PROCESSING')
        .execute();
      assert.equal(moves.length, 1, `${id} moved once`);
    }
    // close() verifies the ledger.
    await server.close();
    server = undefined;
  });
});
