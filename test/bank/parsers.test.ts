// The streamed pain.002 and camt.054 readers on hand-written files that the official schemas accept (each
// fixture is validated with xmllint first), and on files they must refuse with the element and line named.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BankFileError } from '../../src/rails/iso20022/reader.ts';
import { readPain002, type Pain002Item } from '../../src/rails/iso20022/pain002.ts';
import { readCamt054, type Camt054Item } from '../../src/rails/iso20022/camt054.ts';
import { minorUnitsOf } from '../../src/rails/iso20022/amounts.ts';
import { describe, it } from '../helpers/node-test.ts';
import { xmllintValidates } from '../helpers/iso20022.ts';
import { tempDir } from '../helpers/temp-dirs.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'iso20022');
const PAIN002 = 'pain.002.001.10.xsd';
const CAMT054 = 'camt.054.001.08.xsd';

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

async function refusal(items: AsyncIterable<unknown>): Promise<BankFileError> {
  try {
    await all(items);
  } catch (err) {
    if (err instanceof BankFileError) return err;
    throw err;
  }
  assert.fail('the file was read without a refusal');
}

const dir = tempDir('iso20022-parsers');
function fileWith(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('pain.002 reader', () => {
  it('reads the group, each batch and each payment with its effective status and reason', async () => {
    const file = join(FIXTURES, 'pain002-levels.xml');
    assert.ok((await xmllintValidates(PAIN002, file)).ok, 'the fixture is schema-valid');
    const items = await all(readPain002(file));
    const strip = (item: Pain002Item) => {
      const { line, ...rest } = item;
      assert.ok(line > 0, 'each item names its line');
      return rest;
    };
    assert.deepEqual(items.map(strip), [
      {
        kind: 'GROUP',
        msgId: 'STS-20261202-0001',
        createdAt: '2026-12-02T08:15:00Z',
        originalMsgId: 'P0123456789abcdef0123456789abcdef',
        originalMsgNameId: 'pain.001.001.09',
        status: 'PART',
      },
      { kind: 'BATCH', originalPmtInfId: 'B1', status: 'ACSP', reason: undefined, listsPayments: true },
      {
        kind: 'PAYMENT',
        originalPmtInfId: 'B1',
        originalEndToEndId: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1',
        status: 'ACSC',
        reason: undefined,
        debtorIban: undefined,
        index: 1,
      },
      {
        kind: 'PAYMENT',
        originalPmtInfId: 'B1',
        originalEndToEndId: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2',
        status: 'RJCT',
        reason: { code: 'AC04', info: 'Account closed on 2026-11-30' },
        debtorIban: undefined,
        index: 2,
      },
      {
        kind: 'PAYMENT',
        originalPmtInfId: 'B1',
        originalEndToEndId: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa3',
        status: 'ACSP',
        reason: undefined,
        debtorIban: 'DE89370400440532013000',
        index: 3,
      },
      { kind: 'BATCH', originalPmtInfId: 'B2', status: 'RJCT', reason: { code: 'AM04' }, listsPayments: false },
    ]);
  });

  it("a payment listed without a status of its own takes the group's, reason and all", async () => {
    const file = join(FIXTURES, 'pain002-group-rejected.xml');
    assert.ok((await xmllintValidates(PAIN002, file)).ok, 'the fixture is schema-valid');
    const items = await all(readPain002(file));
    assert.equal(items[0]?.kind, 'GROUP');
    assert.deepEqual(items[0]?.kind === 'GROUP' && items[0].reason, { code: 'FF01', info: 'Invalid file format' });
    const payment = items.find((i) => i.kind === 'PAYMENT');
    assert.equal(payment?.kind === 'PAYMENT' && payment.status, 'RJCT');
    assert.deepEqual(payment?.kind === 'PAYMENT' && payment.reason, { code: 'FF01', info: 'Invalid file format' });
  });

  it('refuses a wrong namespace, naming the root element and its line', async () => {
    const file = fileWith(
      'wrong-ns.xml',
      '<?xml version="1.0"?>\n\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.03">\n</Document>\n',
    );
    assert.equal((await xmllintValidates(PAIN002, file)).ok, false, 'the schema refuses it too');
    const err = await refusal(readPain002(file));
    assert.equal(err.element, 'Document');
    assert.equal(err.line, 3);
    assert.match(
      err.message,
      /pain\.002\.001\.03.*expected <Document> in "urn:iso:std:iso:20022:tech:xsd:pain\.002\.001\.10"/,
    );
  });

  it('refuses malformed XML with the element it was in and the line', async () => {
    const file = fileWith(
      'malformed.xml',
      [
        '<?xml version="1.0"?>',
        '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.10">',
        '  <CstmrPmtStsRpt>',
        '    <GrpHdr><MsgId>X</MsgId>',
        '    </CstmrPmtStsRpt>',
        '</Document>',
      ].join('\n'),
    );
    const err = await refusal(readPain002(file));
    assert.equal(err.line, 5);
    assert.equal(err.element, 'GrpHdr');
    assert.equal(err.message, 'line 5, <GrpHdr>: <GrpHdr> is not closed before </CstmrPmtStsRpt>');
  });

  it('refuses a DOCTYPE (entities are a way in)', async () => {
    const file = fileWith(
      'doctype.xml',
      '<?xml version="1.0"?>\n<!DOCTYPE Document [<!ENTITY x "y">]>\n' +
        '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.10"/>\n',
    );
    const err = await refusal(readPain002(file));
    assert.match(err.message, /DOCTYPE/);
  });
});

describe('camt.054 reader', () => {
  it('reads each movement: direction, status, amount in minor units, references, return information', async () => {
    const file = join(FIXTURES, 'camt054-entries.xml');
    assert.ok((await xmllintValidates(CAMT054, file)).ok, 'the fixture is schema-valid');
    const items = await all(readCamt054(file));
    const entries = items.filter((i): i is Extract<Camt054Item, { kind: 'ENTRY' }> => i.kind === 'ENTRY');
    assert.deepEqual(
      items.slice(0, 2).map(({ line: _line, ...rest }) => rest),
      [
        { kind: 'HEADER', msgId: 'NTF-20261202-0001', createdAt: '2026-12-02T09:00:00+01:00' },
        { kind: 'ACCOUNT', notificationId: 'N-1', iban: 'DE89370400440532013000', currency: 'EUR' },
      ],
    );
    const brief = entries.map((e) => [e.entryKey, e.direction, e.status, e.amount, e.endToEndId, e.reference]);
    assert.deepEqual(brief, [
      ['BANK-E1', 'DBIT', 'BOOK', 12550n, 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1', undefined],
      ['BANK-E2', 'CRDT', 'BOOK', 4000n, 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa4', undefined],
      ['BANK-E3', 'CRDT', 'BOOK', 100001n, 'NOTPROVIDED', 'PAY-0A1B2C3D4E5F'],
      ['BANK-E4-A', 'DBIT', 'BOOK', 1000n, 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa5', undefined],
      ['R-4/2', 'DBIT', 'BOOK', 2000n, 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa6', undefined],
      ['R-5', 'CRDT', 'PDNG', 500n, undefined, undefined],
      ['NTF-20261202-0001/6', 'CRDT', 'BOOKED', 725n, undefined, 'Funds for quote PAY-FFFFFFFFFFFF thanks'],
    ]);
    assert.deepEqual(entries[1]?.returnInfo, { code: 'AC04', info: 'Closed account' });
    assert.equal(entries[0]?.returnInfo, undefined);
    assert.equal(entries[0]?.bookedAtMs, Date.parse('2026-12-02T00:00:00Z'));
    assert.equal(entries[1]?.bookedAtMs, Date.parse('2026-12-04T10:30:00Z'), 'a time without offset is UTC');
    assert.ok(
      entries.every((e) => e.accountIban === 'DE89370400440532013000'),
      'each entry names its account',
    );
    assert.deepEqual(
      entries.map((e) => e.index),
      [1, 2, 3, 4, 4, 5, 6],
    );
  });

  it('refuses an amount with more decimals than its currency has, naming the line', async () => {
    const text = (await import('node:fs')).readFileSync(join(FIXTURES, 'camt054-entries.xml'), 'utf8');
    const file = fileWith('fraction.xml', text.replace('<Amt Ccy="EUR">125.50</Amt>', '<Amt Ccy="EUR">125.505</Amt>'));
    assert.ok((await xmllintValidates(CAMT054, file)).ok, 'the schema allows five decimals');
    const err = await refusal(readCamt054(file));
    assert.equal(err.element, 'Amt');
    assert.equal(err.line, text.split('\n').findIndex((l) => l.includes('125.50')) + 1);
  });

  it('refuses a pain.002 read as a camt.054', async () => {
    const err = await refusal(readCamt054(join(FIXTURES, 'pain002-levels.xml')));
    assert.equal(err.element, 'Document');
    assert.match(err.message, /camt\.054\.001\.08/);
  });
});

describe('amounts', () => {
  it('reads decimals exactly into minor units', () => {
    assert.equal(minorUnitsOf('125.50', 'EUR'), 12550n);
    assert.equal(minorUnitsOf('0.1', 'EUR'), 10n);
    assert.equal(minorUnitsOf('7', 'RWF'), 7n);
    assert.equal(minorUnitsOf('7.0', 'RWF'), 7n);
    assert.equal(minorUnitsOf('7.5', 'RWF'), undefined);
    assert.equal(minorUnitsOf('123456789012345678.99', 'EUR'), 12345678901234567899n);
    assert.equal(minorUnitsOf('-1', 'EUR'), undefined);
    assert.equal(minorUnitsOf('1e3', 'EUR'), undefined);
    assert.equal(minorUnitsOf('0.00000001', 'BTC'), 1n);
  });
});
