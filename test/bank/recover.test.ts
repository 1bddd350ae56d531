/**
 * What a crashed export leaves, put right by the next one (services/bank/recover.ts), each state made on
 * purpose: a released file still in its temp folder is placed; one whose temp copy is gone too is written
 * again from its rows, byte for byte; payments claimed for a file never released go back to the batch and
 * the stray temp file is removed; a file the bank already took from the outbox is never placed again.
 * On the engine under test.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useServer, type TestPlatform } from '../helpers/harness.ts';
import { before, describe, it } from '../helpers/node-test.ts';
import { tempDir } from '../helpers/temp-dirs.ts';
import { bankConnectorsFile, eurPayout, fundedEurCustomer } from './fixtures.ts';

describe('recovery of an interrupted export', () => {
  const folders = bankConnectorsFile(tempDir('bank-recover'));
  const server = useServer({ CONNECTORS_FILE: folders.file, RUN_WORKERS: 'false' });
  let p: TestPlatform;
  let payer: { customerId: string; eur: string };
  before(async () => {
    p = await server.platform('recover');
    payer = await fundedEurCustomer(server, p, 1_000_000);
  });
  const tmp = (name: string) => join(folders.outbox, '.tmp', name);
  const unplace = (fileId: string) =>
    server.app.store.db.updateTable('bank_files').set({ applied_at: null }).where('id', '=', fileId).execute();
  const exported = async () => {
    const files = await server.app.services.bank.export();
    assert.equal(files.length, 1, JSON.stringify(files));
    return files[0] as NonNullable<(typeof files)[0]>;
  };

  it('places a released file from its temp copy, or writes it again byte for byte', async () => {
    await eurPayout(server, p, payer, 700);
    await eurPayout(server, p, payer, 800);
    const file = await exported();
    const bytes = readFileSync(file.path);
    // Crashed after the release committed, before the rename.
    renameSync(file.path, tmp(file.name));
    await unplace(file.fileId);
    const [first] = await server.app.services.bank.recover();
    assert.deepEqual(first?.placed, [file.name]);
    assert.deepEqual(readFileSync(file.path), bytes, 'placed whole');
    // Crashed with the temp copy lost too (or torn): written again from its rows.
    rmSync(file.path);
    writeFileSync(tmp(file.name), bytes.subarray(0, 100));
    await unplace(file.fileId);
    const [second] = await server.app.services.bank.recover();
    assert.deepEqual(second?.placed, [file.name], JSON.stringify(second));
    assert.deepEqual(readFileSync(file.path), bytes, 'the same bytes again');
    // Taken by the bank: the outbox is empty, the file was placed: it stays gone.
    rmSync(file.path);
    const [third] = await server.app.services.bank.recover();
    assert.deepEqual(third?.placed, []);
    assert.equal(existsSync(file.path), false, 'never placed twice');
  });

  it('gives back what a file never released had claimed, and removes its temp file', async () => {
    const id = await eurPayout(server, p, payer, 900);
    const orphan = 'BankFile:01900000-0000-7000-8000-000000000000';
    await server.app.store.db
      .updateTable('rail_payments')
      .set({ bank_file_id: orphan })
      .where('transaction_id', '=', id)
      .execute();
    writeFileSync(tmp('P01900000000070008000000000000000.xml'), '<half');
    const [recovered] = await server.app.services.bank.recover();
    assert.equal(recovered?.unclaimed, 1);
    assert.equal(existsSync(tmp('P01900000000070008000000000000000.xml')), false);
    const file = await exported();
    assert.equal(file.nbOfTxs, 1, 'it went in the next file');
    assert.equal((await p.prod.get(`/transactions/${id}`)).body.status, 'PROCESSING');
  });
});
