// The fake bank (src/testing/fake-bank/): it reads pain.001 files as a bank does and answers with pain.002 and
// camt.054 files that hold to the official XSDs (every file it writes is checked with xmllint here), by the
// sandbox's account-number rules; a MsgId it has seen is refused; what it owes later comes when it is due.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rejectionReason } from '../../src/domain/bank-reasons.ts';
import { readCamt054 } from '../../src/rails/iso20022/camt054.ts';
import { readPain002 } from '../../src/rails/iso20022/pain002.ts';
import { FakeBank } from '../../src/testing/fake-bank/bank.ts';
import { decimalOf, writeCredit } from '../../src/testing/fake-bank/credit.ts';
import { fateOf } from '../../src/testing/fake-bank/fates.ts';
import { after, describe, it } from '../helpers/node-test.ts';
import { schemaDirForTests } from '../helpers/iso20022.ts';
import { runCli } from '../helpers/processes.ts';

const SCHEMAS = schemaDirForTests();
const XSD: Record<string, string> = {
  'pain.001': 'pain.001.001.09.xsd',
  'pain.002': 'pain.002.001.10.xsd',
  'camt.054': 'camt.054.001.08.xsd',
};

/** xmllint's verdict on a file against its kind's official schema. */
function assertValid(path: string): void {
  // The kind the document says it is (its namespace), not the one its name says.
  const kind = /xsd:(pain\.00[12]|camt\.054)\./.exec(readFileSync(path, 'utf8').slice(0, 300))?.[1] ?? '';
  const xsd = XSD[kind];
  assert.ok(xsd, `no schema for ${path}`);
  const run = spawnSync('xmllint', ['--noout', '--stream', '--schema', join(SCHEMAS, xsd), path], { encoding: 'utf8' });
  assert.equal(run.status, 0, `${path} does not validate:\n${run.stderr}`);
}

const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function folders() {
  const root = mkdtempSync(join(tmpdir(), 'fake-bank-'));
  roots.push(root);
  const outbox = join(root, 'outbox');
  const inbox = join(root, 'inbox');
  mkdirSync(outbox);
  mkdirSync(inbox);
  return { root, outbox, inbox };
}

interface TestPayment {
  e2e: string;
  iban: string;
  amount: string;
}

/** A pain.001.001.09 as the service writes one (validated here too, so the input is a real one). */
function pain001(
  dir: string,
  msgId: string,
  payments: TestPayment[],
  name = `${msgId}.xml`,
  mtimeMs = Date.UTC(2026, 11, 2, 9),
): string {
  const sum = payments.reduce((s, p) => s + Math.round(Number(p.amount) * 100), 0);
  const ctrl = (sum / 100).toFixed(2);
  const txs = payments
    .map(
      (p) =>
        `<CdtTrfTxInf><PmtId><InstrId>${p.e2e.slice(0, 10)}</InstrId><EndToEndId>${p.e2e}</EndToEndId></PmtId>` +
        `<Amt><InstdAmt Ccy="EUR">${p.amount}</InstdAmt></Amt><Cdtr><Nm>Creditor ${p.e2e.slice(0, 4)}</Nm></Cdtr>` +
        `<CdtrAcct><Id><IBAN>${p.iban}</IBAN></Id></CdtrAcct><RmtInf><Ustrd>payout</Ustrd></RmtInf></CdtTrfTxInf>`,
    )
    .join('\n');
  const xml =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"><CstmrCdtTrfInitn>' +
    `<GrpHdr><MsgId>${msgId}</MsgId><CreDtTm>2026-12-02T09:00:00Z</CreDtTm><NbOfTxs>${payments.length}</NbOfTxs>` +
    `<CtrlSum>${ctrl}</CtrlSum><InitgPty><Nm>Acme Payouts SA</Nm></InitgPty></GrpHdr>` +
    `<PmtInf><PmtInfId>${msgId}-1</PmtInfId><PmtMtd>TRF</PmtMtd>` +
    `<NbOfTxs>${payments.length}</NbOfTxs><CtrlSum>${ctrl}</CtrlSum>` +
    `<ReqdExctnDt><Dt>2026-12-02</Dt></ReqdExctnDt><Dbtr><Nm>Acme Payouts SA</Nm></Dbtr>` +
    '<DbtrAcct><Id><IBAN>DE89370400440532013000</IBAN></Id></DbtrAcct>' +
    '<DbtrAgt><FinInstnId><BICFI>COBADEFFXXX</BICFI></FinInstnId></DbtrAgt>' +
    `<ChrgBr>SLEV</ChrgBr>\n${txs}\n</PmtInf></CstmrCdtTrfInitn></Document>\n`;
  const path = join(dir, name);
  writeFileSync(path, xml);
  utimesSync(path, mtimeMs / 1000, mtimeMs / 1000);
  assertValid(path);
  return path;
}

const e2e = (n: number) => n.toString(16).padStart(32, '0');
/** A German IBAN-shaped account ending in `suffix` (the fake bank reads only its last digits). */
const ibanEnding = (suffix: string) => `DE4450010517540732${suffix.padStart(4, '0')}`;

function written(inbox: string): string[] {
  return readdirSync(inbox)
    .filter((n) => n.endsWith('.xml'))
    .sort();
}

function txStatuses(xml: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of xml.matchAll(
    /<OrgnlEndToEndId>([^<]+)<\/OrgnlEndToEndId><TxSts>([A-Z]+)<\/TxSts>(?:<StsRsnInf><Rsn><Cd>([A-Z0-9]+))?/g,
  ))
    out[m[1] ?? ''] = `${m[2]}${m[3] ? ` ${m[3]}` : ''}`;
  return out;
}

function entries(xml: string): string[] {
  return [
    ...xml.matchAll(
      new RegExp(
        '<Ntry><Amt Ccy="([A-Z]+)">([^<]+)</Amt><CdtDbtInd>([A-Z]+)</CdtDbtInd>.*?' +
          '<EndToEndId>([^<]+)</EndToEndId>(?:.*?<RtrInf><Rsn><Cd>([A-Z0-9]+))?',
        'g',
      ),
    ),
  ].map((m) => `${m[3]} ${m[2]} ${m[1]} ${m[4]}${m[5] ? ` return ${m[5]}` : ''}`);
}

/** The answers as the service's readers see them: each payment's status and reason, each booked entry. */
async function readBack(inbox: string, reports: string[], notice: string) {
  const statuses: string[] = [];
  for (const name of reports)
    for await (const item of readPain002(join(inbox, name)))
      if (item.kind === 'PAYMENT')
        statuses.push(
          `${item.originalEndToEndId} ${item.status} ${rejectionReason(item.reason?.code)} ${item.debtorIban}`,
        );
  const booked: string[] = [];
  for await (const item of readCamt054(join(inbox, notice)))
    if (item.kind === 'ENTRY')
      booked.push(
        `${item.direction} ${item.status} ${item.amount} ${item.currency} ${item.endToEndId} ${item.accountIban}`,
      );
  return { statuses, booked };
}

describe('the fake bank', () => {
  it('picks each fate from the sandbox table for transfers out by the account number', () => {
    assert.deepEqual(fateOf(ibanEnding('0000'), 'transfer-out'), { status: 'ACSC', bookNow: true });
    assert.deepEqual(fateOf(ibanEnding('0002'), 'transfer-out'), { status: 'RJCT', code: 'AM04', bookNow: false });
    assert.deepEqual(fateOf(ibanEnding('0003'), 'transfer-out'), { status: 'RJCT', code: 'AC01', bookNow: false });
    assert.deepEqual(fateOf(ibanEnding('0004'), 'transfer-out'), { status: 'RJCT', code: 'MS03', bookNow: false });
    assert.deepEqual(fateOf(ibanEnding('0005'), 'transfer-out'), {
      status: 'ACSP',
      bookNow: false,
      later: { what: 'REJECT', afterMs: 30_000, code: 'MS03' },
    });
    assert.deepEqual(fateOf(ibanEnding('0005'), 'quote', { returnAfterMs: 86_400_000 }), {
      status: 'ACSC',
      bookNow: true,
      later: { what: 'RETURN', afterMs: 86_400_000, code: 'AC04' },
    });
    assert.deepEqual(fateOf(ibanEnding('0003'), 'quote', { delayMs: 1000 }), {
      status: 'ACSP',
      bookNow: false,
      later: { what: 'BOOK', afterMs: 1000 },
    });
  });

  it('answers a pain.001 with a status report and a debit notification, and what it owes when it is due', async () => {
    const { outbox, inbox } = folders();
    const received = Date.UTC(2026, 11, 2, 9);
    pain001(outbox, 'P1', [
      { e2e: e2e(1), iban: ibanEnding('0100'), amount: '10.00' },
      { e2e: e2e(2), iban: ibanEnding('0003'), amount: '20.50' },
      { e2e: e2e(3), iban: ibanEnding('0005'), amount: '30.01' },
      { e2e: e2e(4), iban: ibanEnding('0002'), amount: '40.00' },
    ]);
    let now = received + 1000;
    const bank = new FakeBank({ outbox, inbox, clock: { nowMs: () => now } });
    const first = await bank.tick();
    assert.deepEqual(first.read, [{ name: 'P1.xml', msgId: 'P1', payments: 4 }]);
    const [report, notice, ...rest] = written(inbox);
    assert.deepEqual(rest, []);
    assert.match(report ?? '', /^20261202T090000000Z-1-pain\.002-R[0-9a-f]{32}\.xml$/);
    assert.match(notice ?? '', /-2-camt\.054-N[0-9a-f]{32}\.xml$/);
    for (const name of written(inbox)) assertValid(join(inbox, name));
    const reportXml = readFileSync(join(inbox, report ?? ''), 'utf8');
    assert.match(
      reportXml,
      new RegExp(
        '<OrgnlMsgId>P1</OrgnlMsgId><OrgnlMsgNmId>pain\\.001\\.001\\.09</OrgnlMsgNmId>' +
          '<OrgnlNbOfTxs>4</OrgnlNbOfTxs><OrgnlCtrlSum>100\\.51</OrgnlCtrlSum><GrpSts>PART</GrpSts>',
      ),
    );
    assert.deepEqual(txStatuses(reportXml), {
      [e2e(1)]: 'ACSC',
      [e2e(2)]: 'RJCT AC01',
      [e2e(3)]: 'ACSP',
      [e2e(4)]: 'RJCT AM04',
    });
    const noticeXml = readFileSync(join(inbox, notice ?? ''), 'utf8');
    assert.match(noticeXml, /<Acct><Id><IBAN>DE89370400440532013000<\/IBAN><\/Id><\/Acct>/);
    assert.deepEqual(entries(noticeXml), [`DBIT 10.00 EUR ${e2e(1)}`]);

    // Nothing is due yet, and the file read is not read again.
    assert.deepEqual(await bank.tick(), { read: [], written: [] });
    assert.equal(bank.state.owed(), 1);
    now = received + 30_000;
    const later = await bank.tick();
    assert.equal(later.written.length, 1);
    const lateName = later.written[0] ?? '';
    assert.match(lateName, /^20261202T090030000Z-3-pain\.002-/);
    assertValid(join(inbox, lateName));
    const lateXml = readFileSync(join(inbox, lateName), 'utf8');
    assert.doesNotMatch(lateXml, /GrpSts/, 'a later report says nothing of the group');
    assert.deepEqual(txStatuses(lateXml), { [e2e(3)]: 'RJCT MS03' });
    assert.equal(bank.state.owed(), 0);

    // The service's own readers (rails/iso20022) read them, and each code means the sandbox's reason again.
    const { statuses, booked } = await readBack(inbox, [report ?? '', lateName], notice ?? '');
    const ours = 'DE89370400440532013000';
    assert.deepEqual(statuses, [
      `${e2e(1)} ACSC COUNTERPARTY_POST_TX_FAILED ${ours}`,
      `${e2e(2)} RJCT INVALID_BANK_ACCOUNT ${ours}`,
      `${e2e(3)} ACSP COUNTERPARTY_POST_TX_FAILED ${ours}`,
      `${e2e(4)} RJCT INSUFFICIENT_BALANCE ${ours}`,
      `${e2e(3)} RJCT COUNTERPARTY_POST_TX_FAILED ${ours}`,
    ]);
    assert.deepEqual(booked, [`DBIT BOOK 1000 EUR ${e2e(1)} ${ours}`]);
  });

  it('books then returns a payment by the quote table, after --return-after', async () => {
    const { outbox, inbox } = folders();
    const received = Date.UTC(2026, 11, 2, 9);
    pain001(outbox, 'P2', [
      { e2e: e2e(5), iban: ibanEnding('0005'), amount: '5.00' },
      { e2e: e2e(6), iban: ibanEnding('0003'), amount: '6.00' },
    ]);
    let now = received;
    const bank = new FakeBank({
      outbox,
      inbox,
      rules: 'quote',
      returnAfterMs: 2 * 86_400_000,
      delayMs: 60_000,
      clock: { nowMs: () => now },
    });
    await bank.tick();
    const [report, notice] = written(inbox);
    assert.deepEqual(txStatuses(readFileSync(join(inbox, report ?? ''), 'utf8')), {
      [e2e(5)]: 'ACSC',
      [e2e(6)]: 'ACSP',
    });
    assert.deepEqual(entries(readFileSync(join(inbox, notice ?? ''), 'utf8')), [`DBIT 5.00 EUR ${e2e(5)}`]);
    now = received + 60_000;
    const booked = (await bank.tick()).written;
    assert.equal(booked.length, 1);
    assert.deepEqual(entries(readFileSync(join(inbox, booked[0] ?? ''), 'utf8')), [`DBIT 6.00 EUR ${e2e(6)}`]);
    now = received + 2 * 86_400_000;
    const returned = (await bank.tick()).written;
    assert.equal(returned.length, 1);
    assert.match(returned[0] ?? '', /^20261204T090000000Z-3-camt\.054-/);
    const returnXml = readFileSync(join(inbox, returned[0] ?? ''), 'utf8');
    assert.deepEqual(entries(returnXml), [`CRDT 5.00 EUR ${e2e(5)} return AC04`]);
    assert.match(returnXml, /<Fmly><Cd>ICDT<\/Cd><SubFmlyCd>RRTN<\/SubFmlyCd>/);
    const read: unknown[] = [];
    for await (const item of readCamt054(join(inbox, returned[0] ?? '')))
      if (item.kind === 'ENTRY') read.push([item.direction, item.amount, item.endToEndId, item.returnInfo]);
    assert.deepEqual(read, [['CRDT', 500n, e2e(5), { code: 'AC04' }]]);
    for (const name of written(inbox)) assertValid(join(inbox, name));
    // The inbox sorts in the order things happened: the booking before its return.
    assert.deepEqual(written(inbox), [report, notice, booked[0], returned[0]]);
  });

  it('refuses a MsgId it has read before, and a file it cannot read, with a group rejection', async () => {
    const { outbox, inbox } = folders();
    pain001(outbox, 'P3', [{ e2e: e2e(7), iban: ibanEnding('0100'), amount: '1.00' }]);
    const bank = new FakeBank({ outbox, inbox });
    await bank.tick();
    const before = written(inbox);
    // The same file again changes nothing; a new file with the same MsgId is refused.
    pain001(outbox, 'P3', [{ e2e: e2e(8), iban: ibanEnding('0100'), amount: '2.00' }], 'again.xml');
    writeFileSync(
      join(outbox, 'broken.xml'),
      '<?xml version="1.0"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09">' +
        '<CstmrCdtTrfInitn><GrpHdr><MsgId>P4</MsgId>\n<NbOfTxs>1</Nb',
    );
    const second = await bank.tick();
    assert.deepEqual(
      second.read.map((r) => [r.name, r.msgId, r.refused?.split(':')[0]]),
      [
        ['again.xml', 'P3', 'MsgId P3 was in a file read before'],
        ['broken.xml', 'P4', 'not a pain.001 the bank can read'],
      ],
    );
    const added = written(inbox).filter((n) => !before.includes(n));
    assert.equal(added.length, 2);
    const refusals = added.map((n) => readFileSync(join(inbox, n), 'utf8'));
    for (const name of added) assertValid(join(inbox, name));
    assert.ok(
      refusals.some((x) => /<OrgnlMsgId>P3<\/OrgnlMsgId>.*<GrpSts>RJCT<\/GrpSts><StsRsnInf><Rsn><Cd>DU01</s.test(x)),
      'the duplicate is refused with DU01',
    );
    assert.ok(
      refusals.some((x) => /<OrgnlMsgId>P4<\/OrgnlMsgId>.*<GrpSts>RJCT<\/GrpSts><StsRsnInf><Rsn><Cd>FF01</s.test(x)),
      'the unreadable file is refused with FF01',
    );
    assert.ok(
      refusals.every((x) => !x.includes('TxInfAndSts')),
      'a refusal says nothing of payments',
    );
    assert.deepEqual(await bank.tick(), { read: [], written: [] });
  });

  it('writes the same answers again after a crash between writing and remembering', async () => {
    const { outbox, inbox, root } = folders();
    pain001(outbox, 'P5', [{ e2e: e2e(9), iban: ibanEnding('0100'), amount: '9.99' }]);
    const state = join(root, 'state');
    await new FakeBank({ outbox, inbox, state }).tick();
    const first = written(inbox).map((n) => [n, readFileSync(join(inbox, n), 'utf8')]);
    // Forgetting the file is what a crash before `remember` leaves: the rerun writes the very same bytes.
    rmSync(join(state, 'seen.jsonl'));
    for (const [name] of first) rmSync(join(inbox, name ?? ''));
    await new FakeBank({ outbox, inbox, state }).tick();
    assert.deepEqual(
      written(inbox).map((n) => [n, readFileSync(join(inbox, n), 'utf8')]),
      first,
    );
  });

  it('writes a credit notification with the reference, the amount and the currency', async () => {
    const { inbox } = folders();
    assert.equal(decimalOf(12345n, 'EUR'), '123.45');
    assert.equal(decimalOf(5n, 'EUR'), '0.05');
    assert.equal(decimalOf(700n, 'RWF'), '700');
    const name = await writeCredit({
      inbox,
      reference: 'QUOTE-REF-1 & co',
      amount: 12345n,
      currency: 'EUR',
      iban: 'DE89370400440532013000',
    });
    assert.deepEqual(written(inbox), [name]);
    assertValid(join(inbox, name));
    const xml = readFileSync(join(inbox, name), 'utf8');
    assert.deepEqual(entries(xml), ['CRDT 123.45 EUR NOTPROVIDED']);
    assert.match(xml, /<Sts><Cd>BOOK<\/Cd><\/Sts>/);
    assert.match(xml, /<RmtInf><Ustrd>QUOTE-REF-1 &#38; co<\/Ustrd><\/RmtInf>/);
    assert.deepEqual(readdirSync(join(inbox, '.tmp')), []);
  });

  it('runs as `payouts bank fake --once` and `payouts bank fake credit`, and refuses what it cannot take', async () => {
    const { outbox, inbox } = folders();
    pain001(
      outbox,
      'P6',
      [
        { e2e: e2e(10), iban: ibanEnding('0005'), amount: '3.00' },
        { e2e: e2e(11), iban: ibanEnding('0001'), amount: '4.00' },
      ],
      'P6.xml',
      Date.now() - 60_000,
    );
    const once = await runCli(
      ['bank', 'fake', '--outbox', outbox, '--inbox', inbox, '--once', '--rules', 'quote', '--return-after', '0s'],
      process.env,
    );
    assert.equal(once.code, 0, once.stderr);
    const lines = once.stdout.trim().split('\n');
    assert.equal(lines[0], 'read P6.xml: MsgId P6, 2 payments');
    assert.deepEqual(
      lines.slice(1).map((l) => /^wrote \S+-(\d)-(pain\.002|camt\.054)-/.exec(l)?.slice(1, 3).join(' ')),
      ['1 pain.002', '2 camt.054', '3 camt.054'],
    );
    const [, notice, returned] = written(inbox);
    assert.deepEqual(entries(readFileSync(join(inbox, notice ?? ''), 'utf8')), [
      `DBIT 3.00 EUR ${e2e(10)}`,
      `DBIT 4.00 EUR ${e2e(11)}`,
    ]);
    assert.deepEqual(entries(readFileSync(join(inbox, returned ?? ''), 'utf8')), [
      `CRDT 3.00 EUR ${e2e(10)} return AC04`,
    ]);
    const again = await runCli(['bank', 'fake', '--outbox', outbox, '--inbox', inbox, '--once'], process.env);
    assert.equal(again.stdout, '');

    const credit = await runCli(
      ['bank', 'fake', 'credit', '--inbox', inbox, '--reference', 'REF-42', '--amount', '250', '--currency', 'EUR'],
      process.env,
    );
    assert.equal(credit.code, 0, credit.stderr);
    const name = /^wrote (\S+)$/.exec(credit.stdout.trim())?.[1] ?? '';
    assertValid(join(inbox, name));
    assert.match(
      readFileSync(join(inbox, name), 'utf8'),
      /<IBAN>DE89370400440532013000<\/IBAN>.*<Amt Ccy="EUR">2\.50<\/Amt>.*<Ustrd>REF-42<\/Ustrd>/s,
    );

    for (const [args, message] of [
      [['bank', 'fake', '--inbox', inbox], /`bank fake` needs --outbox/],
      [
        ['bank', 'fake', 'credit', '--inbox', inbox, '--reference', 'R', '--amount', '1.50', '--currency', 'EUR'],
        /--amount takes minor units/,
      ],
      [
        ['bank', 'fake', 'credit', '--inbox', inbox, '--reference', 'R', '--amount', '150', '--currency', 'XYZ'],
        /--currency must be one of/,
      ],
      [
        ['bank', 'fake', '--outbox', outbox, '--inbox', inbox, '--return-after', 'soon'],
        /--return-after takes a duration/,
      ],
      [['bank', 'fake', 'debit', '--inbox', inbox], /takes `credit` or nothing/],
      [['bank', 'fake', '--outbox', outbox, '--inbox', inbox, '--rules', 'other'], /--rules/],
    ] as const) {
      const run = await runCli([...args], process.env);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, message);
      assert.equal(run.stderr.trim().split('\n').length, 1, 'one line');
    }
  });
});
