// camt.054 credit notifications and refused files, ingested through the real service, CLI and inbox, on the
// engine under test: a credit whose reference a quote gave out funds it; another amount fails it with
// FUNDING_AMOUNT_MISMATCH; one that names no quote lands on the unmatched list (never lost); the same file
// twice is applied once; a malformed file, a wrong namespace, a schema-invalid file and another debtor's file
// are refused whole, with the element and line named, and nothing of them is applied; an EndToEndId we
// never sent is recorded as UNKNOWN_PAYMENT. Every file a test writes is held to the official schema first.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { IngestOutcome } from '../../src/services/bank/incoming.ts';
import { createTestDatabase, useServer, type TestPlatform } from '../helpers/harness.ts';
import { camt054Xml, type EntrySpec } from '../helpers/bank-files.ts';
import { xmllintValidates } from '../helpers/iso20022.ts';
import { after, before, describe, it } from '../helpers/node-test.ts';
import { runCli } from '../helpers/processes.ts';
import { tempDir } from '../helpers/temp-dirs.ts';
import { bankConnectorsFile, eurRatesFile } from './fixtures.ts';

const DEBTOR = 'DE89370400440532013000';
const OPERATOR_TOKEN = randomBytes(16).toString('hex');
const dir = tempDir('bank-ingest');
const inbox = join(dir, 'inbox');
const ratesFile = eurRatesFile(dir, { fixedMinor: 25, variableBps: 20 });
const connectorsFile = bankConnectorsFile(dir).file;
const ENV = { RUN_WORKERS: 'false', RATES_FILE: ratesFile, CONNECTORS_FILE: connectorsFile, OPERATOR_TOKEN };

let serial = 0;
/** A camt.054 file on disk, checked against the official schema. */
async function notification(entries: EntrySpec[], iban = DEBTOR): Promise<string> {
  const path = join(dir, `camt054-${++serial}.xml`);
  writeFileSync(path, camt054Xml({ msgId: `NTF-${serial}-${randomBytes(3).toString('hex')}`, iban, entries }));
  const check = await xmllintValidates('camt.054.001.08.xsd', path);
  assert.ok(check.ok, check.output);
  return path;
}

interface CreditLine {
  entryKey: string;
  reference?: string;
  quoteId?: string;
  amount: number;
}

const amountText = (minor: number) => `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;

// Its own database, so that the CLI can open it too.
const database = await createTestDatabase();
after(() => database.drop());

describe('bank ingest: credits and refusals', () => {
  const server = useServer(ENV, { database });
  let p: TestPlatform;
  let payee: string;
  const ingest = async (file: string): Promise<IngestOutcome> => {
    const [outcome] = await server.app.services.bank.ingest([file]);
    assert.ok(outcome, 'an outcome for the file');
    return outcome;
  };
  const count = async (table: 'bank_credits' | 'rail_events' | 'bank_files' | 'journal_entries' | 'events') =>
    Number(
      (
        await server.app.store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<bigint>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const snapshot = async () => ({
    credits: await count('bank_credits'),
    railEvents: await count('rail_events'),
    journal: await count('journal_entries'),
    events: await count('events'),
  });

  /** A production REALTIME_FUNDING quote in EUR to a USD account: its reference and what it asks for. */
  async function realtimeQuote(amount = 10_000) {
    const quote = await p.prod.post('/quotes', {
      source: { sourceType: 'REALTIME_FUNDING', currency: 'EUR' },
      destination: { destinationType: 'ACCOUNT', accountId: payee },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: amount,
    });
    assert.equal(quote.status, 201, JSON.stringify(quote.body));
    const reference = quote.body.paymentInstructions[0].accountOrWalletInfo.reference as string;
    assert.match(reference, /^PAY-[0-9A-F]{12}$/);
    return { quote: quote.body, reference };
  }
  const statusOf = async (transactionId: string) => (await p.prod.get(`/transactions/${transactionId}`)).body;

  before(async () => {
    p = await server.platform();
    const account = await p.prod.post('/platform/external-accounts', {
      currency: 'USD',
      accountInfo: {
        accountType: 'USD_ACCOUNT',
        accountNumber: '000123456000',
        routingNumber: '021000021',
        beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Pat Payee' },
      },
    });
    assert.equal(account.status, 201, JSON.stringify(account.body));
    await server.app.services.externalAccounts.activate(account.body.id);
    payee = account.body.id;
  });

  it('a credit naming a quote funds it; the same file again is already applied and changes nothing', async () => {
    const { quote, reference } = await realtimeQuote();
    const file = await notification([
      { key: `CR-${reference}`, direction: 'CRDT', amount: amountText(10_000), reference },
    ]);
    const outcome = await ingest(file);
    assert.equal(outcome.outcome, 'APPLIED', JSON.stringify(outcome));
    assert.equal(outcome.outcome === 'APPLIED' && outcome.counts.funded, 1);
    const payment = await statusOf(quote.transactionId);
    assert.equal(payment.status, 'PROCESSING', 'funded and handed to its rail (manual: USD has no route)');
    const credit = await server.app.store.db
      .selectFrom('bank_credits')
      .selectAll()
      .where('entry_key', '=', `CR-${reference}`)
      .executeTakeFirstOrThrow();
    assert.equal(credit.result, 'FUNDED');
    assert.equal(credit.quote_id, quote.id);
    assert.equal(credit.amount, 10_000n);

    const earlier = await snapshot();
    const again = await ingest(file);
    assert.equal(again.outcome, 'ALREADY_APPLIED');
    assert.equal(again.outcome === 'ALREADY_APPLIED' && again.bankFileId, outcome.bankFileId);
    assert.deepEqual(await snapshot(), earlier, 'nothing changed');
    assert.equal((await statusOf(quote.transactionId)).status, 'PROCESSING');
  });

  it('another amount fails the quote (FUNDING_AMOUNT_MISMATCH); a credit for nothing is kept unmatched', async () => {
    const { quote, reference } = await realtimeQuote();
    const file = await notification([
      { key: `MM-${reference}`, direction: 'CRDT', amount: amountText(9_999), ustrd: `Payment ${reference} thanks` },
      { key: 'NOBODY-1', direction: 'CRDT', amount: '12.34', reference: 'PAY-000000000000' },
      { key: 'NOREF-1', direction: 'CRDT', amount: '5.00' },
      // Not booked yet: not money yet.
      { key: 'PENDING-1', direction: 'CRDT', amount: '1.00', status: 'PDNG', reference },
    ]);
    const outcome = await ingest(file);
    assert.equal(outcome.outcome, 'APPLIED', JSON.stringify(outcome));
    assert.deepEqual(
      outcome.outcome === 'APPLIED' && [outcome.counts.mismatched, outcome.counts.unmatched, outcome.counts.notBooked],
      [1, 2, 1],
    );
    const payment = await statusOf(quote.transactionId);
    assert.equal(payment.status, 'FAILED');
    assert.equal(payment.failureReason, 'FUNDING_AMOUNT_MISMATCH');
    // The funded quote of the first test is no longer PENDING: a second credit for it funds nothing either.
    const { quote: second, reference: ref2 } = await realtimeQuote();
    await ingest(
      await notification([{ key: `OK-${ref2}`, direction: 'CRDT', amount: amountText(10_000), reference: ref2 }]),
    );
    const late = await ingest(
      await notification([{ key: `LATE-${ref2}`, direction: 'CRDT', amount: amountText(10_000), reference: ref2 }]),
    );
    assert.equal(late.outcome === 'APPLIED' && late.counts.unmatched, 1, 'a second credit for a funded quote');
    assert.equal((await statusOf(second.transactionId)).status, 'PROCESSING');

    const operator = async (query: string, token = OPERATOR_TOKEN) => {
      const res = await fetch(`${server.baseUrl}/operator/bank/credits${query}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return { status: res.status, body: (await res.json()) as { data: CreditLine[] } };
    };
    const unmatched = await operator('?result=UNMATCHED');
    assert.equal(unmatched.status, 200, JSON.stringify(unmatched.body));
    const keys = unmatched.body.data.map((c) => c.entryKey).sort();
    assert.deepEqual(keys, [`LATE-${ref2}`, 'NOBODY-1', 'NOREF-1'].sort());
    const lateLine = unmatched.body.data.find((c) => c.entryKey === `LATE-${ref2}`);
    assert.equal(lateLine?.quoteId, second.id, 'the quote it named is kept for the operator');
    assert.equal(lateLine?.amount, 10_000);
    const mismatch = await operator('?result=MISMATCH');
    assert.deepEqual(
      mismatch.body.data.map((c) => [c.entryKey, c.reference]),
      [[`MM-${reference}`, reference]],
      'the reference found in the unstructured remittance',
    );
    assert.equal((await operator('?result=NOPE')).status, 400);
    assert.equal((await operator('', 'wrong')).status, 401);
  });

  it('an EndToEndId we never sent is recorded as UNKNOWN_PAYMENT, not dropped', async () => {
    const strangers = ['0123456789abcdef0123456789abcdef', 'NOTOURS-42'];
    const file = await notification(
      strangers.map((e2e, i) => ({ key: `DB-${i}-${serial}`, direction: 'DBIT', amount: '3.21', endToEndId: e2e })),
    );
    const outcome = await ingest(file);
    assert.equal(outcome.outcome === 'APPLIED' && outcome.counts.unknown, 2, JSON.stringify(outcome));
    const events = await server.app.store.db
      .selectFrom('rail_events')
      .selectAll()
      .where('bank_file_id', '=', outcome.bankFileId)
      .orderBy('message_id')
      .execute();
    assert.deepEqual(
      events.map((e) => [e.result, e.rail_reference, e.status, e.amount, e.currency, e.kind]),
      strangers.map((e2e) => ['UNKNOWN_PAYMENT', e2e, 'COMPLETED', 321n, 'EUR', 'ENTRY']),
    );
  });

  it('refuses whole, naming element and line: malformed, wrong namespace, schema-invalid, other debtor', async () => {
    const { quote, reference } = await realtimeQuote();
    const good = readFileSync(
      await notification([{ key: `X-${reference}`, direction: 'CRDT', amount: amountText(10_000), reference }]),
      'utf8',
    );
    const write = (name: string, text: string) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    };
    const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;
    const cases: [string, string, RegExp][] = [
      ['malformed.xml', good.replace('</Ntry>', '</Entry>'), new RegExp(`line ${lineOf(good, '</Ntry>')}.*Ntry`)],
      ['namespace.xml', good.replace('camt.054.001.08', 'camt.054.001.02'), /camt\.054\.001\.02/],
      [
        'invalid.xml',
        good.replace('<BkTxCd/>', ''),
        new RegExp(`schema: line ${lineOf(good, '<NtryDtls>')}: .*Element 'NtryDtls': This element is not expected`),
      ],
      [
        'direction.xml',
        good.replace('<CdtDbtInd>CRDT</CdtDbtInd>', '<CdtDbtInd>CREDIT</CdtDbtInd>'),
        new RegExp(`line ${lineOf(good, '<CdtDbtInd>')}, <CdtDbtInd>: "CREDIT"`),
      ],
      [
        'other-debtor.xml',
        good.replace(`<IBAN>${DEBTOR}</IBAN>`, '<IBAN>FR1420041010050500013M02606</IBAN>'),
        new RegExp(`line ${lineOf(good, '</Acct>')}, <Acct>: .*FR1420041010050500013M02606.*another debtor`),
      ],
    ];
    const earlier = await snapshot();
    for (const [name, text, expected] of cases) {
      const outcome = await ingest(write(name, text));
      assert.equal(outcome.outcome, 'REFUSED', `${name}: ${JSON.stringify(outcome)}`);
      assert.match(outcome.outcome === 'REFUSED' ? outcome.error : '', expected, name);
    }
    assert.deepEqual(await snapshot(), earlier, 'nothing of a refused file is applied');
    assert.equal((await statusOf(quote.transactionId)).status, 'PENDING', 'the quote was not funded');
    const refused = await server.app.store.db
      .selectFrom('bank_files')
      .select(['name', 'state', 'error'])
      .where('state', '=', 'REFUSED')
      .execute();
    assert.deepEqual(refused.map((r) => r.name).sort(), cases.map(([name]) => name).sort(), 'each refusal recorded');
    // The same refused bytes again: read again (what refused them may have been put right), refused again, and
    // still one record of them.
    const again = await ingest(join(dir, 'malformed.xml'));
    assert.equal(again.outcome, 'REFUSED');
    const records = await server.app.store.db
      .selectFrom('bank_files')
      .select('id')
      .where('state', '=', 'REFUSED')
      .execute();
    assert.equal(records.length, cases.length, 'one record per refused file');
  });

  it('the inbox: applied files go to processed/, refused ones to refused/ with why; the CLI: a line each', async () => {
    const { quote, reference } = await realtimeQuote();
    const credit = await notification([
      { key: `IN-${reference}`, direction: 'CRDT', amount: amountText(10_000), reference },
    ]);
    const dropped = join(inbox, 'answer-1.xml');
    writeFileSync(dropped, readFileSync(credit));
    const broken = join(inbox, 'answer-2.xml');
    writeFileSync(broken, '<?xml version="1.0"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08">\n');
    const arriving = join(inbox, 'answer-3.xml.part');
    writeFileSync(arriving, 'still uploading');
    // Settled: the watcher leaves a file that changed in the last second for its next pass.
    const past = new Date(Date.now() - 10_000);
    for (const f of [dropped, broken, arriving]) utimesSync(f, past, past);
    const outcomes = await server.app.services.bank.ingestInboxes();
    assert.deepEqual(
      outcomes.map((o) => o.outcome),
      ['APPLIED', 'REFUSED'],
    );
    assert.ok(existsSync(join(inbox, 'processed', 'answer-1.xml')), 'applied: in processed/');
    assert.ok(existsSync(join(inbox, 'refused', 'answer-2.xml')), 'refused: in refused/');
    assert.match(readFileSync(join(inbox, 'refused', 'answer-2.xml.error.txt'), 'utf8'), /line \d+/);
    assert.ok(existsSync(arriving) && !existsSync(dropped) && !existsSync(broken), 'only settled files are taken');
    assert.equal((await statusOf(quote.transactionId)).status, 'PROCESSING');

    const cli = await runCli(['bank', 'ingest', credit, join(inbox, 'refused', 'answer-2.xml')], {
      ...process.env,
      ...database.env,
      ...ENV,
    });
    assert.equal(cli.code, 1, `${cli.stdout}\n${cli.stderr}`);
    assert.match(cli.stdout, /camt054-\d+\.xml: already applied \(camt\.054 NTF-/);
    assert.match(cli.stderr, /answer-2\.xml: refused: line \d+/);
  });
});
