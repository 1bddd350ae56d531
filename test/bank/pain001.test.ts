// The pain.001.001.09 writer on its own: amounts from minor units and the currency's decimals, exact NbOfTxs
// and CtrlSum, names fitted to the banks' character set, every file held to the official schemas. No database.
import assert from 'node:assert/strict';
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fitText, escapeXml } from '../../src/rails/iso20022/text.ts';
import {
  formatAmount,
  transferAtLine,
  writePain001,
  type CreditTransfer,
  type Pain001Group,
} from '../../src/rails/iso20022/pain001.ts';
import { schemaPathOf, validateFile } from '../../src/rails/iso20022/xsd.ts';
import { describe, it } from '../helpers/node-test.ts';
import { schemaDirForTests } from '../helpers/iso20022.ts';
import { tempDir } from '../helpers/temp-dirs.ts';

const schemas = schemaDirForTests();
const dir = tempDir('pain001');

const group = (over: Partial<Pain001Group> = {}): Pain001Group => ({
  msgId: 'P0190aaaabbbbccccddddeeeeffff0000',
  createdAtMs: Date.UTC(2026, 11, 2, 9, 0, 0),
  executionDate: '2026-12-02',
  debtor: { name: 'Acme Payouts SA', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' },
  currency: 'EUR',
  nbOfTxs: 2,
  ctrlSum: 12_346n,
  pmtInfId: 'P0190aaaabbbbccccddddeeeeffff0000-1',
  variant: 'iso',
  ...over,
});

const transfers: CreditTransfer[] = [
  {
    endToEndId: '0190aaaabbbbccccddddeeeeffff0001',
    amount: 12_345n,
    creditor: {
      name: 'Zoë Ærøskøbing-Straße & Søn <Ltd>',
      iban: 'FR1420041010050500013M02606',
      bic: 'BNPAFRPPXXX',
      address: { line1: 'Rue de l’Église 5', city: 'Paris', postalCode: '75001', country: 'FR' },
    },
    remittance: 'Invoice №42 — payé',
  },
  {
    endToEndId: '0190aaaabbbbccccddddeeeeffff0002',
    amount: 1n,
    creditor: { name: 'Li Wei 李伟', iban: 'DE89370400440532013000' },
  },
];

async function* batches<T>(items: T[], size = 1): AsyncGenerator<T[]> {
  for (let at = 0; at < items.length; at += size) yield items.slice(at, at + size);
}

async function write(name: string, g: Pain001Group, items: CreditTransfer[]) {
  const path = join(dir, name);
  const handle = await open(path, 'w');
  try {
    return { path, written: await writePain001(handle, g, batches(items)) };
  } finally {
    await handle.close();
  }
}

describe('pain.001 writer', () => {
  it('amounts come from minor units and the decimals', () => {
    assert.equal(formatAmount(12_550n, 2), '125.50');
    assert.equal(formatAmount(1n, 2), '0.01');
    assert.equal(formatAmount(0n, 2), '0.00');
    assert.equal(formatAmount(125n, 0), '125');
    assert.equal(formatAmount(1n, 8), '0.00000001');
    assert.equal(formatAmount(123_456_789_012_345_678n, 2), '1234567890123456.78', 'no float on the way');
  });

  it('names are fitted to the SEPA character set and cut to length; markup never leaks', () => {
    assert.equal(fitText('Zoë Ærøskøbing-Straße & Søn <Ltd>', 70), 'Zoe AEroskobing-Strasse + Son Ltd');
    assert.equal(fitText('Li Wei 李伟', 70), 'Li Wei');
    assert.equal(fitText('  a\tb\n c ', 70), 'a b c');
    assert.equal(fitText('x'.repeat(80), 70).length, 70);
    assert.equal(fitText('李伟', 70), '');
    assert.equal(escapeXml(`a&b<c>"d'`), 'a&amp;b&lt;c&gt;&quot;d&apos;');
  });

  it('writes a file that validates against the ISO and the EPC schemas, NbOfTxs and CtrlSum exact', async () => {
    const { path, written } = await write('eur.xml', group(), transfers);
    for (const variant of ['iso', 'epc-sct'] as const)
      assert.deepEqual(await validateFile(schemaPathOf({ schemas, variant }, 'pain.001'), path), { ok: true }, variant);
    const xml = await readFile(path, 'utf8');
    assert.equal(xml.match(/<NbOfTxs>2<\/NbOfTxs>/g)?.length, 2, 'group and payment information');
    assert.equal(xml.match(/<CtrlSum>123\.46<\/CtrlSum>/g)?.length, 2);
    assert.match(xml, /<InstdAmt Ccy="EUR">123\.45<\/InstdAmt>/);
    assert.match(xml, /<InstdAmt Ccy="EUR">0\.01<\/InstdAmt>/);
    assert.match(xml, /<Nm>Zoe AEroskobing-Strasse \+ Son Ltd<\/Nm>/);
    assert.match(xml, /<StrtNm>Rue de l&apos;Eglise 5<\/StrtNm>/);
    assert.match(xml, /<Ustrd>Invoice 42 - paye<\/Ustrd>/);
    assert.equal(written.nbOfTxs, 2);
    assert.equal(written.ctrlSum, 12_346n);
    assert.equal(written.bytes, Buffer.byteLength(xml));
    const lines = xml.split('\n');
    assert.match(lines[(written.transferLines[1] ?? 0) - 1] ?? '', /<CdtTrfTxInf>/, 'the second transfer starts there');
    assert.equal(transferAtLine(written, (written.transferLines[1] ?? 0) + 3), 1);
    assert.equal(transferAtLine(written, 3), undefined, 'a header line is no transfer');
  });

  it('a currency without decimals writes whole amounts; one the schema cannot express does not validate', async () => {
    const rwf = await write('rwf.xml', group({ currency: 'RWF', ctrlSum: 12_346n }), transfers);
    assert.match(await readFile(rwf.path, 'utf8'), /<InstdAmt Ccy="RWF">12345<\/InstdAmt>/);
    assert.deepEqual(await validateFile(join(schemas, 'pain.001.001.09.xsd'), rwf.path), { ok: true });
    const btc = await write('btc.xml', group({ currency: 'BTC', ctrlSum: 12_346n }), transfers);
    const result = await validateFile(join(schemas, 'pain.001.001.09.xsd'), btc.path);
    assert.equal(result.ok, false, 'eight decimals: more than the schema allows');
  });

  it('refuses to finish a file whose transfers do not add up to its header', async () => {
    await assert.rejects(write('short.xml', group({ nbOfTxs: 3 }), transfers), /header says 3/);
    await assert.rejects(write('sum.xml', group({ ctrlSum: 1n }), transfers), /header says 2 for 1/);
  });

  it('streams: a file of 20,000 transfers is written in chunks and validates', async () => {
    const many: CreditTransfer[] = Array.from({ length: 20_000 }, (_, i) => ({
      endToEndId: i.toString(16).padStart(32, '0'),
      amount: BigInt(i + 1),
      creditor: { name: `Payee ${i}`, iban: 'DE89370400440532013000' },
    }));
    const sum = many.reduce((total, t) => total + t.amount, 0n);
    const gen = async function* () {
      for (let at = 0; at < many.length; at += 500) yield many.slice(at, at + 500);
    };
    const path = join(dir, 'many.xml');
    const handle = await open(path, 'w');
    const written = await writePain001(handle, group({ nbOfTxs: many.length, ctrlSum: sum }), gen());
    await handle.close();
    assert.equal(written.transferLines.length, 20_000);
    assert.deepEqual(await validateFile(join(schemas, 'pain.001.001.09.xsd'), path), { ok: true });
  });
});
