/**
 * Every pain.001 is held to its schema before it leaves. With the EU banks' SEPA variant (epc-sct) the files
 * validate against the EPC schema; with a schema folder whose pain.001 XSD is stricter than the official one
 * (names of at most 20 characters, written by this test in a temp folder), the file that would not validate
 * is not released: the payment its error points at goes on GET /operator/attention with the reason and stays
 * PENDING until an operator settles or fails it, the others leave in the next file. On the engine under test.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { transactionIdOfEndToEnd } from '../../src/rails/iso20022/ids.ts';
import { validateFile } from '../../src/rails/iso20022/xsd.ts';
import { useServer, type TestPlatform } from '../helpers/harness.ts';
import { schemaDirForTests } from '../helpers/iso20022.ts';
import { before, describe, it } from '../helpers/node-test.ts';
import { tempDir } from '../helpers/temp-dirs.ts';
import { eventTypes } from '../money/fixtures.ts';
import { bankConnectorsFile, eurPayout, fundedEurCustomer } from './fixtures.ts';

const schemas = schemaDirForTests();
const OPERATOR = randomBytes(24).toString('hex');
const endToEndIds = (xml: string) =>
  [...xml.matchAll(/<EndToEndId>([^<]+)<\/EndToEndId>/g)].map((m) => transactionIdOfEndToEnd(m[1] ?? ''));

describe('variant epc-sct: files held to the EU banks’ SEPA schema', () => {
  const folders = bankConnectorsFile(tempDir('bank-epc'), { variant: 'epc-sct' });
  const server = useServer({ CONNECTORS_FILE: folders.file });
  let p: TestPlatform;

  before(async () => {
    p = await server.platform('epc');
  });

  it('a payout becomes a line of a file that validates against the EPC schema', async () => {
    const payer = await fundedEurCustomer(server, p, 50_000);
    const id = await eurPayout(server, p, payer, 9_999, `Jean-François d’Alembert ${'x'.repeat(80)}`);
    const [file, ...more] = await server.app.services.bank.export();
    assert.equal(more.length, 0);
    assert.equal(file?.state, 'RELEASED', JSON.stringify(file));
    const epc = join(schemas, 'pain.001.001.09.epc-sct-2023.xsd');
    assert.deepEqual(await validateFile(epc, file?.path ?? ''), { ok: true });
    const xml = readFileSync(file?.path ?? '', 'utf8');
    assert.deepEqual(endToEndIds(xml), [id]);
    const name = (/<Cdtr>\s*<Nm>([^<]*)<\/Nm>/.exec(xml)?.[1] ?? '').replaceAll('&apos;', "'");
    assert.equal(name.length, 70, 'cut to the EPC’s 70 characters');
    assert.match(name, /^Jean-Francois d'Alembert x+$/);
  });
});

describe('a file that would not validate is not released', () => {
  const dir = tempDir('bank-strict');
  const strict = join(dir, 'schemas');
  // The official answers' schemas as they are, and a pain.001 schema that allows names of 20 characters only.
  mkdirSync(strict, { recursive: true });
  for (const name of ['pain.002.001.10.xsd', 'camt.054.001.08.xsd'])
    copyFileSync(join(schemas, name), join(strict, name));
  const official = readFileSync(join(schemas, 'pain.001.001.09.xsd'), 'utf8');
  const stricter = official.replace(
    new RegExp(
      '(<xs:simpleType name="Max140Text">\\s*<xs:restriction base="xs:string">\\s*<xs:minLength value="1"/>\\s*)' +
        '<xs:maxLength value="140"/>',
    ),
    '$1<xs:maxLength value="20"/>',
  );
  assert.notEqual(stricter, official, 'the test schema is stricter');
  writeFileSync(join(strict, 'pain.001.001.09.xsd'), stricter);
  const folders = bankConnectorsFile(dir, { schemas: strict });
  const server = useServer({ CONNECTORS_FILE: folders.file, OPERATOR_TOKEN: OPERATOR });
  let p: TestPlatform;

  before(async () => {
    p = await server.platform('strict');
  });
  const operator = async (path: string) =>
    (await fetch(`${server.baseUrl}/operator${path}`, { headers: { authorization: `Bearer ${OPERATOR}` } })).json();
  const status = async (id: string) => (await p.prod.get(`/transactions/${id}`)).body.status as string;

  it('holds back the payment its schema error points at, on the attention list; the others leave', async () => {
    const payer = await fundedEurCustomer(server, p, 100_000);
    const short = await eurPayout(server, p, payer, 1_000, 'Ann Short');
    const long = await eurPayout(server, p, payer, 2_000, 'Bartholomew Longname-Featherstonehaugh');
    const other = await eurPayout(server, p, payer, 3_000, 'Cy Brief');

    const files = await server.app.services.bank.export('bank-eu');
    assert.deepEqual(
      files.map((f) => [f.state, f.nbOfTxs, f.heldBack]),
      [
        ['REFUSED', 3, 1],
        ['RELEASED', 2, undefined],
      ],
      JSON.stringify(files),
    );
    const [refused, released] = files;
    assert.match(refused?.error ?? '', /^line \d+: Element 'Nm'.*maxLength/);
    assert.ok(existsSync(refused?.path ?? ''), 'the refused file is kept aside');
    assert.match(readFileSync(`${refused?.path}.error.txt`, 'utf8'), /line \d+: Element 'Nm'/);
    assert.deepEqual(
      readdirSync(folders.outbox).filter((n) => n.endsWith('.xml')),
      [released?.name],
      'only the valid file is in the outbox',
    );
    assert.deepEqual(new Set(endToEndIds(readFileSync(released?.path ?? '', 'utf8'))), new Set([short, other]));
    assert.equal(await status(short), 'PROCESSING');
    assert.equal(await status(other), 'PROCESSING');
    assert.equal(await status(long), 'PENDING', 'never released');
    assert.deepEqual(await eventTypes(server, long), ['OUTGOING_PAYMENT.PENDING']);

    const row = await server.app.store.db
      .selectFrom('bank_files')
      .selectAll()
      .where('id', '=', refused?.fileId ?? '')
      .executeTakeFirstOrThrow();
    assert.equal(row.state, 'REFUSED');
    assert.match(row.error ?? '', /Element 'Nm'/);

    const attention = (await operator('/attention')) as { data: { transactionId: string; reason: string }[] };
    assert.deepEqual(
      attention.data.map((a) => a.transactionId),
      [long],
      JSON.stringify(attention),
    );
    assert.match(attention.data[0]?.reason ?? '', new RegExp(`${refused?.name} refused by its schema: line \\d+`));

    assert.deepEqual(await server.app.services.bank.export(), [], 'held back: not in the next file');
    await server.app.services.transactions.resolveManually(long, 'FAIL');
    assert.equal(await status(long), 'FAILED', 'the operator failed it');
    const refund = (await p.prod.get(`/transactions/${long}`)).body.refund;
    assert.equal(refund?.status, 'COMPLETED', 'and its money went back');
    assert.deepEqual(((await operator('/attention')) as { data: unknown[] }).data, [], 'off the list');
  });
});
