// What the bank answers on our pain.001 files, ingested on the engine under test: production EUR payouts go
// out in a released file (the export), then pain.002 reports accept or reject them per file, batch and payment
// (a rejection fails the payment with the reason its code maps to, and refunds it), camt.054 debits book them
// (COMPLETED), and a return days after completion fails them with PAYOUT_RETURNED and refunds the payer.
// Every answer is held to the official schema before it is ingested; the ledger verifies when the server closes.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { endToEndIdOf } from '../../src/rails/iso20022/ids.ts';
import type { IngestOutcome } from '../../src/services/bank/incoming.ts';
import { verifyLedger } from '../../src/ledger/verify.ts';
import { useServer, type TestPlatform } from '../helpers/harness.ts';
import { camt054Xml, pain002Xml, type EntrySpec, type Pain002Spec } from '../helpers/bank-files.ts';
import { xmllintValidates } from '../helpers/iso20022.ts';
import { before, describe, it } from '../helpers/node-test.ts';
import { tempDir } from '../helpers/temp-dirs.ts';
import { bankConnectorsFile, eurPayout, fundedEurCustomer } from './fixtures.ts';

const DEBTOR = 'DE89370400440532013000';
const dir = tempDir('bank-answers');
const folders = bankConnectorsFile(join(dir, 'bank'));
let serial = 0;

describe('bank ingest: status reports and bookings of our payouts', () => {
  const server = useServer({ RUN_WORKERS: 'false', CONNECTORS_FILE: folders.file });
  let p: TestPlatform;
  let payer: { customerId: string; eur: string };

  before(async () => {
    p = await server.platform('bank-in');
    payer = await fundedEurCustomer(server, p, 1_000_000);
  });

  const payment = async (id: string) => (await p.prod.get(`/transactions/${id}`)).body;
  const balance = async () =>
    (await p.prod.get(`/customers/internal-accounts?customerId=${encodeURIComponent(payer.customerId)}&currency=EUR`))
      .body.data[0].balance.amount as number;

  /** Payouts of `amount` each, released in one pain.001: their ids and the file's MsgId. */
  async function released(count: number, amount = 1_000) {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push(await eurPayout(server, p, payer, amount));
    const files = await server.app.services.bank.export('bank-eu');
    assert.equal(files.length, 1, JSON.stringify(files));
    assert.equal(files[0]?.state, 'RELEASED');
    for (const id of ids) assert.equal((await payment(id)).status, 'PROCESSING', 'released: PROCESSING');
    return { ids, msgId: files[0]?.msgId ?? '' };
  }

  async function ingest(xml: string, xsd: 'pain.002.001.10.xsd' | 'camt.054.001.08.xsd'): Promise<IngestOutcome> {
    const path = join(dir, `answer-${++serial}.xml`);
    writeFileSync(path, xml);
    const check = await xmllintValidates(xsd, path);
    assert.ok(check.ok, check.output);
    const [outcome] = await server.app.services.bank.ingest([path], 'bank-eu');
    assert.ok(outcome, 'an outcome');
    return outcome;
  }
  const report = (spec: Omit<Pain002Spec, 'msgId'>) =>
    ingest(pain002Xml({ msgId: `STS-${++serial}`, ...spec }), 'pain.002.001.10.xsd');
  const notification = (entries: EntrySpec[], iban = DEBTOR) =>
    ingest(camt054Xml({ msgId: `NTF-${++serial}`, iban, entries }), 'camt.054.001.08.xsd');

  // Three payouts of one file, followed through the tests below: accepted, rejected, then booked or returned.
  let start = 0;
  let accepted = '';
  let rejected = '';
  let later = '';

  it('a payment rejected in its batch fails with its mapped reason and is refunded; the accepted wait', async () => {
    start = await balance();
    const { ids, msgId } = await released(3);
    [accepted = '', rejected = '', later = ''] = ids;
    assert.equal(await balance(), start - 3_000);

    const status = await report({
      originalMsgId: msgId,
      groupStatus: 'PART',
      batches: [
        {
          id: `${msgId}-1`,
          status: 'ACSP',
          payments: [
            { endToEndId: endToEndIdOf(accepted), status: 'ACSC' },
            { endToEndId: endToEndIdOf(rejected), status: 'RJCT', reason: { code: 'AC04', info: 'account closed' } },
          ],
        },
      ],
    });
    assert.equal(status.outcome, 'APPLIED', JSON.stringify(status));
    assert.deepEqual(status.outcome === 'APPLIED' && [status.counts.applied, status.counts.unchanged], [1, 1]);
    const failed = await payment(rejected);
    assert.equal(failed.status, 'FAILED');
    assert.equal(failed.failureReason, 'ACCOUNT_CANNOT_RECEIVE', 'AC04 maps to its public reason');
    assert.equal(failed.refund?.status, 'COMPLETED', 'refunded');
    assert.equal((await payment(accepted)).status, 'PROCESSING', 'accepted: still waiting for its booking');
    assert.equal(await balance(), start - 2_000, 'the rejected payment refunded');
    const note = await server.app.store.db
      .selectFrom('rail_events')
      .select(['note', 'kind', 'result'])
      .where('transaction_id', '=', rejected)
      .executeTakeFirstOrThrow();
    assert.deepEqual(note, {
      note: 'AC04 ClosedAccountNumber: account closed',
      kind: 'STATUS_REPORT',
      result: 'APPLIED',
    });
  });

  it('a booked debit completes the payment; a return days after completion fails it, refunded', async () => {
    const booked = await notification(
      [accepted, later].map((id, i) => ({
        key: `BOOK-${serial}-${i}`,
        direction: 'DBIT',
        amount: '10.00',
        endToEndId: endToEndIdOf(id),
      })),
    );
    assert.equal(booked.outcome === 'APPLIED' && booked.counts.applied, 2, JSON.stringify(booked));
    assert.equal((await payment(accepted)).status, 'COMPLETED');
    assert.equal((await payment(later)).status, 'COMPLETED');

    // Days later the creditor's bank sends one back: a credit to our account with return information.
    const returned = await notification([
      {
        key: `RTRN-${serial}`,
        direction: 'CRDT',
        amount: '10.00',
        endToEndId: endToEndIdOf(later),
        returnCode: 'AC04',
        bookedOn: '2026-12-05',
      },
    ]);
    assert.equal(returned.outcome === 'APPLIED' && returned.counts.applied, 1, JSON.stringify(returned));
    const back = await payment(later);
    assert.equal(back.status, 'FAILED');
    assert.equal(back.failureReason, 'PAYOUT_RETURNED');
    assert.equal(back.refund?.status, 'COMPLETED');
    assert.equal(await balance(), start - 1_000, 'the returned payment refunded');
    assert.deepEqual(await verifyLedger(server.app.store), [], 'the ledger verifies');
    const entries = await server.app.store.db
      .selectFrom('rail_events')
      .select(['amount', 'currency', 'kind'])
      .where('transaction_id', '=', later)
      .where('kind', '=', 'ENTRY')
      .execute();
    assert.deepEqual(
      entries.map((e) => [e.amount, e.currency]),
      [
        [1000n, 'EUR'],
        [1000n, 'EUR'],
      ],
      'what the bank booked, kept for reconciliation',
    );
  });

  it('a group rejection fails every payment of the file; a batch one every payment of the batch', async () => {
    const opening = await balance();
    const group = await released(2);
    const batch = await released(2);
    const g = await report({ originalMsgId: group.msgId, groupStatus: 'RJCT', groupReason: { code: 'FF01' } });
    assert.equal(g.outcome === 'APPLIED' && g.counts.applied, 2, JSON.stringify(g));
    const b = await report({
      originalMsgId: batch.msgId,
      batches: [{ id: `${batch.msgId}-1`, status: 'RJCT', reason: { code: 'AM04' } }],
    });
    assert.equal(b.outcome === 'APPLIED' && b.counts.applied, 2, JSON.stringify(b));
    for (const id of group.ids) assert.equal((await payment(id)).failureReason, 'COUNTERPARTY_POST_TX_FAILED');
    for (const id of batch.ids) assert.equal((await payment(id)).failureReason, 'INSUFFICIENT_BALANCE');
    assert.equal(await balance(), opening, 'every rejected payment refunded');
    // The same report again: already applied, nothing moves.
    const again = await report({ originalMsgId: group.msgId, groupStatus: 'RJCT', groupReason: { code: 'FF01' } });
    assert.equal(again.outcome, 'APPLIED', 'a new report (its own MsgId) on the same file');
    assert.equal(again.outcome === 'APPLIED' && again.counts.applied, 0, 'changes nothing: they failed already');
  });

  it('a rejection of a duplicate file (DU01) leaves the payments of the first copy as they were', async () => {
    const file = await released(2);
    const dup = await report({ originalMsgId: file.msgId, groupStatus: 'RJCT', groupReason: { code: 'DU01' } });
    assert.equal(dup.outcome === 'APPLIED' && dup.counts.applied, 0, JSON.stringify(dup));
    for (const id of file.ids) assert.equal((await payment(id)).status, 'PROCESSING', 'the first copy stands');
  });

  it('refuses a report on a file we never sent, and one quoting another debtor account; nothing applied', async () => {
    const { ids, msgId } = await released(1);
    const [id] = ids as [string];
    const unknown = await report({ originalMsgId: 'P0123456789abcdef0123456789abcdef', groupStatus: 'RJCT' });
    assert.equal(unknown.outcome, 'REFUSED');
    assert.match(unknown.outcome === 'REFUSED' ? unknown.error : '', /line \d+, <OrgnlMsgId>: .* names no pain\.001/);
    const other = await report({
      originalMsgId: msgId,
      batches: [
        {
          id: `${msgId}-1`,
          payments: [{ endToEndId: endToEndIdOf(id), status: 'RJCT', debtorIban: 'FR1420041010050500013M02606' }],
        },
      ],
    });
    assert.equal(other.outcome, 'REFUSED');
    assert.match(other.outcome === 'REFUSED' ? other.error : '', /<DbtrAcct>: .*another debtor/);
    assert.equal((await payment(id)).status, 'PROCESSING', 'nothing of either was applied');
  });
});
