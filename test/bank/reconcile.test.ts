/**
 * Reconciliation on the engine under test, on rows the real paths made: production EUR payouts exported into
 * pain.001 files, answered by the fake bank, its files (and a few a bank might also send: an entry for another
 * amount, one for a payment we never sent, a credit for no quote) ingested; then the report through the
 * operator API (JSON and CSV), `payouts reconcile` and the dashboard.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { endToEndIdOf } from '../../src/rails/iso20022/ids.ts';
import { Camt054Writer } from '../../src/testing/fake-bank/answers.ts';
import { FakeBank } from '../../src/testing/fake-bank/bank.ts';
import { writeCredit } from '../../src/testing/fake-bank/credit.ts';
import { publishReady } from '../../src/testing/fake-bank/xml-file.ts';
import { dashboardClient } from '../dashboard/session-client.ts';
import { useServer, type TestPlatform } from '../helpers/harness.ts';
import { before, describe, it } from '../helpers/node-test.ts';
import { runCli } from '../helpers/processes.ts';
import { tempDir } from '../helpers/temp-dirs.ts';
import { waitFor } from '../helpers/wait.ts';
import { bankConnectorsFile, eurRatesFile, eurAccount, fundedEurCustomer } from './fixtures.ts';

const OPERATOR = randomBytes(24).toString('hex');
const DEBTOR = 'DE89370400440532013000';

describe('reconciliation of a bank connector, through the fake bank', () => {
  const dir = tempDir('bank-reconcile');
  const folders = bankConnectorsFile(dir);
  const rates = eurRatesFile(dir);
  const server = useServer({ CONNECTORS_FILE: folders.file, OPERATOR_TOKEN: OPERATOR, RATES_FILE: rates });
  let p: TestPlatform;
  let payer: { customerId: string; eur: string };
  let account = 0;

  before(async () => {
    p = await server.platform('reconcile');
    payer = await fundedEurCustomer(server, p, 1_000_000);
  });

  /** A payout to an IBAN whose account number ends in `suffix` (the fake bank's rules), waiting for its file. */
  async function payout(suffix: string, amount: number): Promise<string> {
    account += 1;
    const destination = await eurAccount(
      server,
      p,
      payer.customerId,
      'Erika Mustermann',
      account * 1000 + Number(suffix),
    );
    const out = await p.prod.post('/transfer-out', {
      source: { accountId: payer.eur },
      destination: { accountId: destination },
      amount,
    });
    assert.equal(out.status, 201, JSON.stringify(out.body));
    await server.app.services.worker.drain();
    const id: string = out.body.id;
    const held = () =>
      server.app.store.db
        .selectFrom('rail_payments')
        .select('state')
        .where('transaction_id', '=', id)
        .executeTakeFirst();
    await waitFor(async () => (await held())?.state === 'BATCHING', `${id} waiting for its file`);
    return id;
  }
  const status = async (id: string) => (await p.prod.get(`/transactions/${id}`)).body.status as string;
  const operator = (path: string) =>
    fetch(`${server.baseUrl}/operator${path}`, { headers: { authorization: `Bearer ${OPERATOR}` } });
  const inboxFiles = () =>
    readdirSync(folders.inbox)
      .filter((n) => n.endsWith('.xml'))
      .sort()
      .map((n) => join(folders.inbox, n));

  /** A debit notification a bank might send: an entry for `e2e` of `amount` (decimal text). */
  async function booking(e2e: string, amount: string, ref: string): Promise<void> {
    const name = `${new Date().toISOString().replace(/[-:.]/g, '')}-5-camt.054-${ref}.xml`;
    const camt = await Camt054Writer.start(folders.inbox, name, { msgId: ref, createdAt: new Date().toISOString() });
    await camt.account(DEBTOR);
    await camt.entry({
      direction: 'DBIT',
      amount,
      currency: 'EUR',
      bookedAt: new Date().toISOString(),
      acctSvcrRef: `B${ref}`,
      code: 'ICDT/ESCT',
      refs: { endToEndId: e2e },
      party: { role: 'Cdtr', name: 'Someone' },
    });
    await camt.end();
    await publishReady(folders.inbox);
  }

  // The rows: made once, by the real paths, for the report's four doors below.
  const ids: Record<'booked' | 'rejected' | 'late' | 'silent' | 'short', string> = {
    booked: '',
    rejected: '',
    late: '',
    silent: '',
    short: '',
  };
  const files: { first?: string; second?: string } = {};
  const today = new Date().toISOString().slice(0, 10);
  let rows: string[] = [];

  before(async () => {
    const booked = await payout('100', 10_00);
    const rejected = await payout('003', 20_00);
    const late = await payout('005', 30_00);
    const [first] = await server.app.services.bank.export('bank-eu');
    assert.equal(first?.state, 'RELEASED');
    const bank = new FakeBank({ outbox: folders.outbox, inbox: folders.inbox, delayMs: 0 });
    const answered = await bank.tick();
    assert.equal(answered.read.length, 1, JSON.stringify(answered));
    // Released after the bank looked: never answered. And one the bank books for a cent less.
    const silent = await payout('200', 40_00);
    const short = await payout('201', 50_00);
    const [second] = await server.app.services.bank.export('bank-eu');
    assert.equal(second?.nbOfTxs, 2);
    await booking(endToEndIdOf(short), '49.99', 'Nshort1');
    await booking('ffffffffffffffffffffffffffffffff', '7.00', 'Nunknown1');
    await writeCredit({
      inbox: folders.inbox,
      reference: 'PAY-000000000000',
      amount: 500n,
      currency: 'EUR',
      iban: DEBTOR,
    });
    const outcomes = await server.app.services.bank.ingest(inboxFiles(), 'bank-eu');
    assert.ok(
      outcomes.every((o) => o.outcome === 'APPLIED'),
      JSON.stringify(outcomes, (_k, v) => (typeof v === 'bigint' ? Number(v) : v)),
    );
    await server.app.services.worker.drain();
    await waitFor(async () => (await status(booked)) === 'COMPLETED', 'the booked payment completed');
    assert.equal(await status(rejected), 'FAILED');
    assert.equal(await status(late), 'FAILED');
    assert.equal(await status(silent), 'PROCESSING');

    Object.assign(ids, { booked, rejected, late, silent, short });
    Object.assign(files, { first: first?.name, second: second?.name });
  });

  it('gives each payment its file, report and entry, and every difference, as JSON', async () => {
    const { booked, rejected, late, silent, short } = ids;
    const first = { name: files.first };
    const second = { name: files.second };
    const res = await operator(`/reconciliation?from=${today}&to=${today}&connector=bank-eu`);
    assert.equal(res.status, 200);
    const report = (await res.json()) as {
      totals: { payments: number; matched: number; differences: number };
      data: {
        transactionId: string;
        file?: { name: string };
        statusReport?: { status: string };
        entry?: { status: string; amount?: number };
        differences: string[];
      }[];
      differences: { kind: string; transactionId?: string; reference?: string; amount?: number }[];
    };
    const line = (id: string) => report.data.find((l) => l.transactionId === id);
    assert.deepEqual(
      [booked, rejected, late, silent, short].map((id) => [line(id)?.differences, line(id)?.file?.name]),
      [
        [[], first?.name],
        [[], first?.name],
        [[], first?.name],
        [['NEVER_ANSWERED'], second?.name],
        [['AMOUNT_DIFFERS'], second?.name],
      ],
    );
    assert.equal(line(booked)?.entry?.status, 'COMPLETED');
    assert.equal(line(booked)?.entry?.amount, 10_00);
    assert.equal(line(rejected)?.statusReport?.status, 'FAILED');
    assert.equal(line(rejected)?.entry, undefined, 'a rejected payment has no entry');
    assert.deepEqual(report.differences.map((d) => d.kind).sort(), [
      'AMOUNT_DIFFERS',
      'BOOKED_UNKNOWN',
      'NEVER_ANSWERED',
      'UNMATCHED_CREDIT',
    ]);
    assert.equal(report.differences.find((d) => d.kind === 'UNMATCHED_CREDIT')?.reference, 'PAY-000000000000');
    assert.equal(report.differences.find((d) => d.kind === 'BOOKED_UNKNOWN')?.amount, 700);
    assert.deepEqual(report.totals, { payments: 5, matched: 3, differences: 4 });
  });

  it('gives the same as CSV, and refuses a span it cannot read', async () => {
    const { short } = ids;
    const csv = await operator(`/reconciliation?from=${today}&to=${today}&format=csv`);
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
    rows = (await csv.text()).trim().split('\r\n');
    assert.equal(rows.length, 1 + 5 + 2, 'a header, a row per payment, a row per difference of no payment');
    assert.ok(
      rows.some((r) => r.startsWith(`PAYMENT,${short},bank-eu,`) && r.endsWith(',AMOUNT_DIFFERS,,')),
      rows.join('\n'),
    );
    const refused = await operator('/reconciliation?from=yesterday&to=2026-01-01');
    assert.equal(refused.status, 400);
    assert.equal(
      ((await refused.json()) as { field?: string; details?: { field?: string } }).details?.field ?? '',
      'from',
    );
  });

  it('prints the same with payouts reconcile, and the dashboard shows the platform its share', async () => {
    const { booked, rejected, late, silent, short } = ids;
    const env = {
      ...process.env,
      DATA_DIR: server.config.dataDir,
      DATABASE_URL: server.config.databaseUrl ?? '',
      SECRET_KEY: server.config.secretKey.toString('hex'),
      CONNECTORS_FILE: folders.file,
    };
    const table = await runCli(['reconcile', '--from', today, '--to', today], env);
    assert.equal(table.code, 1, `differences exit 1: ${table.stderr}`);
    assert.match(table.stdout, new RegExp(`${silent}.*NEVER_ANSWERED`));
    assert.match(table.stdout, /BOOKED_UNKNOWN .*700 EUR/);
    assert.match(table.stderr, /5 payments, 3 matched, 4 differences/);
    const asCsv = await runCli(['reconcile', '--from', today, '--to', today, '--csv'], env);
    assert.equal(asCsv.stdout, `${rows.join('\r\n')}\r\n`, 'the CLI writes the API’s CSV');

    const dashboard = dashboardClient(server.baseUrl);
    await dashboard.signIn(p.production);
    const page = await dashboard.get(`/dashboard/reconciliation?from=${today}&to=${today}`);
    assert.equal(page.status, 200);
    for (const id of [booked, rejected, late, silent, short]) assert.ok(page.html.includes(id), `${id} is listed`);
    assert.match(page.html, /5 payments, 3 matched, 2 differences/);
    assert.match(page.html, /the connector's account has 2 more/);
    assert.ok(!page.html.includes('PAY-000000000000'), 'the connector’s own credits are the operator’s');
    const download = await dashboard.get(`/dashboard/reconciliation.csv?from=${today}&to=${today}`);
    assert.equal(download.html.trim().split('\r\n').length, 1 + 5);
  });
});
