// Reconciliation's pure part (domain/reconciliation.ts): what a payment's rows mean, the differences found,
// the span an operator types, and the CSV.
import assert from 'node:assert/strict';
import {
  creditDifference,
  csvField,
  csvLines,
  parseSpan,
  reconcileLine,
  totalsOf,
  unknownEntry,
  type ReconEvent,
  type ReconPayment,
} from '../../src/domain/reconciliation.ts';
import { describe, it } from '../helpers/node-test.ts';

const T0 = Date.UTC(2026, 11, 2, 9);
const file = { id: 'BankFile:1', name: 'P1.xml', msgId: 'P1', at: T0 + 1000 };
const payment = (over: Partial<ReconPayment> = {}): ReconPayment => ({
  transactionId: 'Transaction:1',
  platformId: 'Platform:1',
  connector: 'bank-eu',
  createdAt: T0,
  status: 'PROCESSING',
  amount: 1000n,
  currency: 'EUR',
  file,
  ...over,
});
const event = (over: Partial<ReconEvent>): ReconEvent => ({
  transactionId: 'Transaction:1',
  connector: 'bank-eu',
  kind: 'ENTRY',
  status: 'COMPLETED',
  result: 'APPLIED',
  amount: 1000n,
  currency: 'EUR',
  fileName: 'N1.xml',
  at: T0 + 5000,
  ...over,
});

describe('reconciliation', () => {
  it('matches a payment the bank reported and booked for its amount', () => {
    const report = event({ kind: 'STATUS_REPORT', status: 'PENDING', amount: undefined, at: T0 + 2000 });
    const { line, found } = reconcileLine(payment({ status: 'COMPLETED' }), [report, event({})]);
    assert.deepEqual(found, []);
    assert.deepEqual(line.differences, []);
    assert.equal(line.report, report);
    assert.equal(line.entry?.fileName, 'N1.xml');
    assert.deepEqual(totalsOf([line], found), { payments: 1, matched: 1, differences: 0 });
  });

  it('finds a released payment never answered, and does not count one still waiting for its file', () => {
    const released = reconcileLine(payment(), []);
    assert.deepEqual(released.line.differences, ['NEVER_ANSWERED']);
    assert.equal(released.found[0]?.note, 'released in P1.xml');
    const waiting = reconcileLine(payment({ status: 'PENDING', file: undefined }), []);
    assert.deepEqual(waiting.found, []);
    assert.deepEqual(totalsOf([waiting.line], []), { payments: 1, matched: 0, differences: 0 });
  });

  it('finds an amount or a currency the bank booked otherwise', () => {
    const amount = reconcileLine(payment({ status: 'COMPLETED' }), [event({ amount: 999n })]);
    assert.deepEqual(amount.line.differences, ['AMOUNT_DIFFERS']);
    assert.deepEqual(
      [amount.found[0]?.amount, amount.found[0]?.expectedAmount, amount.found[0]?.fileName],
      [999n, 1000n, 'N1.xml'],
    );
    const currency = reconcileLine(payment({ status: 'COMPLETED' }), [event({ currency: 'USD' })]);
    assert.deepEqual(currency.line.differences, ['AMOUNT_DIFFERS']);
  });

  it('finds a payment the bank booked that we do not hold as completed, unless it came back', () => {
    const failed = reconcileLine(payment({ status: 'FAILED' }), [event({ result: 'NO_CHANGE' })]);
    assert.deepEqual(failed.line.differences, ['BOOKED_NOT_COMPLETED']);
    assert.equal(failed.found[0]?.note, 'booked by the bank, FAILED here');
    const returned = reconcileLine(payment({ status: 'FAILED' }), [
      event({}),
      event({ status: 'RETURNED', at: T0 + 9000 }),
    ]);
    assert.deepEqual(returned.line.differences, []);
    assert.equal(returned.line.entry?.status, 'RETURNED', 'the latest entry is the return');
  });

  it('names an entry for no payment of ours, and credits that funded nothing', () => {
    const unknown = unknownEntry(event({ transactionId: undefined, result: 'UNKNOWN_PAYMENT', railReference: 'ab12' }));
    assert.equal(unknown.kind, 'BOOKED_UNKNOWN');
    assert.match(unknown.note, /EndToEndId ab12/);
    const credit = { id: 'BankCredit:1', connector: 'bank-eu', amount: 500n, currency: 'EUR', bookedAt: T0 };
    assert.equal(creditDifference({ ...credit, result: 'FUNDED', reference: 'R1' }), undefined);
    assert.equal(creditDifference({ ...credit, result: 'UNMATCHED', reference: 'R2' })?.kind, 'UNMATCHED_CREDIT');
    assert.equal(
      creditDifference({ ...credit, result: 'MISMATCH', reference: 'R3', quoteId: 'Quote:1' })?.kind,
      'CREDIT_AMOUNT_MISMATCH',
    );
  });

  it('reads a span of dates or times, the last date whole, and names the field it refuses', () => {
    assert.deepEqual(parseSpan('2026-12-01', '2026-12-02'), {
      from: Date.UTC(2026, 11, 1),
      to: Date.UTC(2026, 11, 3),
    });
    assert.deepEqual(parseSpan('2026-12-01T10:00:00Z', '2026-12-01T12:30:00+01:00'), {
      from: Date.UTC(2026, 11, 1, 10),
      to: Date.UTC(2026, 11, 1, 11, 30),
    });
    assert.deepEqual(parseSpan('yesterday', '2026-12-02'), {
      field: 'from',
      message: '"yesterday" is not a date (YYYY-MM-DD) or an RFC 3339 time',
    });
    assert.deepEqual(parseSpan('2026-12-01', '2026-02-30'), {
      field: 'to',
      message: '"2026-02-30" is not a date (YYYY-MM-DD) or an RFC 3339 time',
    });
    assert.deepEqual(parseSpan('2026-12-03', '2026-12-01'), { field: 'to', message: 'must be after from' });
  });

  it('writes CSV a spreadsheet reads as data: quoted where it must be, no formulas', () => {
    assert.equal(csvField('plain'), 'plain');
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('=HYPERLINK("x")'), `"'=HYPERLINK(""x"")"`);
    assert.equal(csvField(-5n), '-5', 'a number is a number');
    assert.equal(csvField(undefined), '');
    const matched = reconcileLine(payment({ status: 'COMPLETED' }), [event({})]).line;
    const unknown = unknownEntry(event({ transactionId: undefined, result: 'UNKNOWN_PAYMENT', railReference: 'ab' }));
    const report = { from: T0, to: T0 + 1, lines: [matched], differences: [unknown], totals: totalsOf([matched], []) };
    const lines = [...csvLines(report)];
    assert.equal(lines.length, 3);
    assert.equal(lines[0]?.split(',').length, 17);
    assert.equal(
      lines[1],
      'PAYMENT,Transaction:1,bank-eu,2026-12-02T09:00:00.000Z,COMPLETED,1000,EUR,P1.xml,,,COMPLETED,1000,EUR,N1.xml,,,',
    );
    assert.equal(
      lines[2],
      'DIFFERENCE,,bank-eu,2026-12-02T09:00:05.000Z,,,,,,,,1000,EUR,N1.xml,BOOKED_UNKNOWN,ab,' +
        '"an entry for EndToEndId ab, which names no payment of ours"',
    );
  });
});
