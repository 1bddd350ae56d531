/**
 * The ISO 20022 export, end to end on the engine under test: a production EUR payout routed to the
 * iso20022 connector waits PENDING for its file, becomes a line of a pain.001 that validates against the
 * official schema, and is PROCESSING (with its webhook event) once the file is released; exporting again
 * writes nothing; racing exports release each payment once; the CLI writes one line per file.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { endToEndIdOf, transactionIdOfEndToEnd } from '../../src/rails/iso20022/ids.ts';
import { validateFile } from '../../src/rails/iso20022/xsd.ts';
import { exportConnector } from '../../src/services/bank/export.ts';
import { tryExportLock } from '../../src/services/bank/lock.ts';
import { useServer, type TestPlatform } from '../helpers/harness.ts';
import { schemaDirForTests } from '../helpers/iso20022.ts';
import { before, describe, it } from '../helpers/node-test.ts';
import { runCli } from '../helpers/processes.ts';
import { tempDir } from '../helpers/temp-dirs.ts';
import { eventTypes } from '../money/fixtures.ts';
import { bankConnectorsFile, eurRatesFile, eurPayout, fundedEurCustomer } from './fixtures.ts';

const schemas = schemaDirForTests();
const OPERATOR = randomBytes(24).toString('hex');
const xmlFiles = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.xml'));
const endToEndIds = (xml: string) => [...xml.matchAll(/<EndToEndId>([^<]+)<\/EndToEndId>/g)].map((m) => m[1]);

describe('pain.001 export through the iso20022 connector', () => {
  const dir = tempDir('bank-export');
  const folders = bankConnectorsFile(dir);
  const rates = eurRatesFile(dir);
  const server = useServer({ CONNECTORS_FILE: folders.file, OPERATOR_TOKEN: OPERATOR, RATES_FILE: rates });
  let p: TestPlatform;
  let payer: { customerId: string; eur: string };

  before(async () => {
    p = await server.platform('bank');
    payer = await fundedEurCustomer(server, p, 1_000_000);
  });

  const status = async (id: string) => (await p.prod.get(`/transactions/${id}`)).body.status as string;
  const rail = (id: string) =>
    server.app.store.db
      .selectFrom('rail_payments')
      .selectAll()
      .where('transaction_id', '=', id)
      .executeTakeFirstOrThrow();

  it('a payout waits PENDING for its file, then is a line of a pain.001 that validates, and PROCESSING', async () => {
    const first = await eurPayout(server, p, payer, 12_345, 'Zoë Ærøskøbing-Straße');
    const second = await eurPayout(server, p, payer, 1);
    assert.equal(await status(first), 'PENDING', 'funded, waiting for its file');
    assert.equal((await rail(first)).state, 'BATCHING');
    assert.equal((await rail(first)).rail_reference, endToEndIdOf(first), 'the EndToEndId, known at once');
    const cancelled = await p.prod.post(`/transactions/${first}/cancel`);
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(await status(first), 'FAILED', 'a payment waiting for its file can still be cancelled');
    const third = await eurPayout(server, p, payer, 12_345, 'Zoë Ærøskøbing-Straße');

    const files = await server.app.services.bank.export('bank-eu');
    assert.equal(files.length, 1, JSON.stringify(files));
    const [file] = files;
    assert.equal(file?.state, 'RELEASED');
    assert.equal(file?.nbOfTxs, 2);
    assert.equal(file?.ctrlSum, '12346');
    assert.equal(file?.currency, 'EUR');
    assert.deepEqual(xmlFiles(folders.outbox), [file?.name], 'one file in the outbox');
    assert.deepEqual(xmlFiles(join(folders.outbox, '.tmp')), [], 'nothing left in its temp folder');
    const path = join(folders.outbox, file?.name ?? '');
    assert.deepEqual(await validateFile(join(schemas, 'pain.001.001.09.xsd'), path), { ok: true });
    const xml = readFileSync(path, 'utf8');
    assert.equal(xml.match(/<NbOfTxs>2<\/NbOfTxs>/g)?.length, 2);
    assert.equal(xml.match(/<CtrlSum>123\.46<\/CtrlSum>/g)?.length, 2);
    assert.match(xml, /<InstdAmt Ccy="EUR">123\.45<\/InstdAmt>/);
    assert.match(xml, /<InstdAmt Ccy="EUR">0\.01<\/InstdAmt>/);
    assert.match(xml, /<Nm>Zoe AEroskobing-Strasse<\/Nm>/, 'the name fitted to the banks’ character set');
    assert.match(xml, new RegExp(`<MsgId>${file?.msgId}</MsgId>`));
    assert.deepEqual(
      new Set(endToEndIds(xml).map((e2e) => transactionIdOfEndToEnd(e2e ?? ''))),
      new Set([second, third]),
      'each EndToEndId names one of the payments',
    );
    for (const id of [second, third]) {
      assert.equal(await status(id), 'PROCESSING', 'released with its file');
      assert.deepEqual(await eventTypes(server, id), ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.PROCESSING']);
      const row = await rail(id);
      assert.equal(row.state, 'PENDING', 'waiting for the bank');
      assert.equal(row.bank_file_id, file?.fileId);
    }
    const recorded = await server.app.store.db
      .selectFrom('bank_files')
      .selectAll()
      .where('id', '=', file?.fileId ?? '')
      .executeTakeFirstOrThrow();
    assert.equal(recorded.state, 'RELEASED');
    assert.equal(recorded.direction, 'OUT');
    assert.equal(recorded.sha256, createHash('sha256').update(readFileSync(path)).digest('hex'));
    assert.equal(recorded.nb_of_txs, 2n);
    assert.equal(recorded.ctrl_sum, 12_346n);
    assert.notEqual(recorded.applied_at, null, 'placed in the outbox');

    assert.deepEqual(await server.app.services.bank.export(), [], 'exporting again writes nothing');
    assert.deepEqual(xmlFiles(folders.outbox), [file?.name]);
    const cancel = await p.prod.post(`/transactions/${second}/cancel`);
    assert.equal(cancel.status, 409, 'in a released file: with its rail');
  });

  it('a quote to an IBAN waits for its file once run, and cannot run twice', async () => {
    const { eurAccount } = await import('./fixtures.ts');
    const destination = await eurAccount(server, p, payer.customerId, 'Quote Payee', 777_001);
    const quote = await p.prod.post('/quotes', {
      source: { sourceType: 'ACCOUNT', accountId: payer.eur },
      destination: { destinationType: 'ACCOUNT', accountId: destination },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 5_000,
    });
    assert.equal(quote.status, 201, JSON.stringify(quote.body));
    const run = await p.prod.post(`/quotes/${quote.body.id}/execute`);
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.equal(run.body.status, 'PENDING', 'funded, waiting for its file');
    assert.equal((await rail(quote.body.transactionId)).state, 'BATCHING');
    const again = await p.prod.post(`/quotes/${quote.body.id}/execute`);
    assert.equal(again.status, 409, 'ran once');
    const files = await server.app.services.bank.export('bank-eu');
    assert.deepEqual(
      files.map((f) => [f.nbOfTxs, f.ctrlSum]),
      [[1, '5000']],
    );
    assert.equal(await status(quote.body.transactionId), 'PROCESSING');
  });

  it('racing exports release each payment once', async () => {
    const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => eurPayout(server, p, payer, 100 + i)));
    const settings = server.config.connectors.banks['bank-eu'];
    assert.ok(settings, 'the connector is configured');
    // Two exports at once with only the database's claim between them: the test holds the connector's lock
    // itself (so the worker's recovery stays out), and both run inside it.
    const lock = tryExportLock(settings.outbox);
    assert.ok(lock, 'the lock is free');
    const now = Date.now();
    const [a, b] = await Promise.all([
      exportConnector(server.app.services.ctx, { ...settings, maxPaymentsPerFile: 5 }, now),
      exportConnector(server.app.services.ctx, { ...settings, maxPaymentsPerFile: 5 }, now),
    ]).finally(() => lock.release());
    const released = [...a, ...b].filter((f) => f.state === 'RELEASED');
    assert.equal(
      released.reduce((n, f) => n + f.nbOfTxs, 0),
      12,
      JSON.stringify(released),
    );
    const inFiles = released.flatMap((f) => endToEndIds(readFileSync(f.path, 'utf8')));
    assert.equal(new Set(inFiles).size, 12, 'no payment in two files');
    for (const id of ids) {
      assert.equal(await status(id), 'PROCESSING');
      const moves = (await eventTypes(server, id)).filter((t) => t === 'OUTGOING_PAYMENT.PROCESSING');
      assert.equal(moves.length, 1, 'moved once');
    }
    // And through the service (its lock): two calls at once, the second finds nothing left.
    await Promise.all(Array.from({ length: 3 }, (_, i) => eurPayout(server, p, payer, 500 + i)));
    const [one, two] = await Promise.all([server.app.services.bank.export(), server.app.services.bank.export()]);
    assert.equal(one.length + two.length, 1, 'one file, by whichever export got the lock first');
  });

  it('`payouts bank export` writes one JSON line per file', async () => {
    const id = await eurPayout(server, p, payer, 4_200);
    const env = {
      ...process.env,
      DATA_DIR: server.config.dataDir,
      DATABASE_URL: server.config.databaseUrl ?? '',
      SECRET_KEY: server.config.secretKey.toString('hex'),
      CONNECTORS_FILE: folders.file,
    };
    const run = await runCli(['bank', 'export', '--connector', 'bank-eu', '--json'], env);
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trim().split('\n');
    assert.equal(lines.length, 1, run.stdout);
    const line = JSON.parse(lines[0] ?? '{}');
    assert.equal(line.state, 'RELEASED');
    assert.equal(line.nbOfTxs, 1);
    assert.equal(line.ctrlSum, '4200');
    assert.ok(existsSync(line.path), line.path);
    assert.equal(await status(id), 'PROCESSING');
    const none = await runCli(['bank', 'export'], env);
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout, '', 'nothing left to export');
    const unknown = await runCli(['bank', 'export', '--connector', 'nope'], env);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /--connector nope is not an iso20022 connector/);
  });
});
