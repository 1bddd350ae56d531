import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkReceiveInput, decideApproval } from '../../src/domain/incoming-payments.ts';
import { canMove, eventTypeOf, INCOMING_TRANSITIONS, isTerminal } from '../../src/domain/transactions.ts';
import type { TransactionStatus } from '../../src/domain/transactions.ts';

const answered = (status: number, body: unknown = '') => ({
  kind: 'ANSWERED' as const,
  status,
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

describe('incoming payments: pure rules', () => {
  it('maps each webhook answer to its decision', () => {
    assert.deepEqual(decideApproval(answered(200, { receiverCustomerInfo: { FULL_NAME: 'R' } }), 'sandbox'), {
      kind: 'APPROVE',
      receiverCustomerInfo: { FULL_NAME: 'R' },
    });
    assert.deepEqual(
      decideApproval(answered(200, 'ok'), 'sandbox'),
      { kind: 'APPROVE' },
      'a body that is not JSON is no body',
    );
    assert.deepEqual(decideApproval(answered(200, { receiverCustomerInfo: ['x'] }), 'sandbox'), { kind: 'APPROVE' });
    assert.deepEqual(decideApproval(answered(202), 'sandbox'), { kind: 'AWAIT' });
    assert.deepEqual(decideApproval(answered(403, { code: 'X', message: 'm', reason: 'R' }), 'sandbox'), {
      kind: 'REJECT',
      details: { reason: 'R' },
    });
    assert.deepEqual(decideApproval(answered(403, { code: 'X', message: 'm' }), 'sandbox'), {
      kind: 'REJECT',
      details: { reason: 'm' },
    });
    assert.deepEqual(decideApproval(answered(403), 'sandbox'), { kind: 'REJECT', details: {} });
    assert.deepEqual(decideApproval(answered(422, { requiredFields: ['TAX_ID', 7, ''] }), 'sandbox'), {
      kind: 'FAIL',
      failureReason: 'MISSING_MANDATORY_PAYEE_DATA',
      details: { requiredFields: ['TAX_ID'] },
    });
    assert.deepEqual(decideApproval({ kind: 'NO_ANSWER', error: 'ECONNREFUSED' }, 'sandbox'), {
      kind: 'FAIL',
      failureReason: 'PAYMENT_APPROVAL_WEBHOOK_ERROR',
      details: { error: 'ECONNREFUSED' },
    });
    assert.deepEqual(decideApproval({ kind: 'NO_ENDPOINT' }, 'sandbox'), { kind: 'APPROVE' });
    assert.equal(decideApproval({ kind: 'NO_ENDPOINT' }, 'production').kind, 'FAIL');
  });

  it('any other status is a webhook error, and what is kept stays bounded', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 599 }).filter((s) => ![200, 202, 403, 422].includes(s)),
        fc.string({ maxLength: 2000 }),
        (status, body) => {
          const d = decideApproval(answered(status, body), 'sandbox');
          assert.deepEqual(d, {
            kind: 'FAIL',
            failureReason: 'PAYMENT_APPROVAL_WEBHOOK_ERROR',
            details: { responseStatus: status },
          });
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 500 }), { maxLength: 200 }),
        fc.string({ maxLength: 1000 }),
        (fields, reason) => {
          const asked = decideApproval(answered(422, { requiredFields: fields }), 'sandbox');
          assert.ok(
            asked.kind === 'FAIL' &&
              asked.details.requiredFields!.length <= 50 &&
              asked.details.requiredFields!.every((f) => f.length <= 200),
            'a 422 keeps at most 50 required fields of at most 200 characters',
          );
          const rejected = decideApproval(answered(403, { reason }), 'sandbox');
          assert.ok(
            rejected.kind === 'REJECT' && (rejected.details.reason ?? '').length <= 200,
            "rejected.kind === 'REJECT' && (rejected.details.reason ?? '').length <= 200",
          );
        },
      ),
    );
  });

  it('the incoming lifecycle: terminal states stay terminal; events are PENDING, COMPLETED and FAILED only', () => {
    const all = Object.keys(INCOMING_TRANSITIONS) as TransactionStatus[];
    for (const from of all) {
      for (const to of all) {
        if (isTerminal(from)) assert.equal(canMove('INCOMING_UMA', from, to), false, `${from} → ${to}`);
      }
      assert.equal(canMove('INCOMING_UMA', from, 'FAILED', true), false, 'no sandbox return for incoming payments');
    }
    assert.ok(canMove('INCOMING_UMA', 'PENDING', 'REJECTED'), "canMove('INCOMING_UMA', 'PENDING', 'REJECTED')");
    assert.ok(!canMove('QUOTE', 'PENDING', 'REJECTED'), 'outgoing payments are never rejected');
    const incoming = { type: 'INCOMING' as const, flow: 'INCOMING_UMA' as const };
    assert.deepEqual(
      all.map((s) => eventTypeOf(incoming, s)),
      [
        'INCOMING_PAYMENT.PENDING',
        undefined,
        'INCOMING_PAYMENT.COMPLETED',
        'INCOMING_PAYMENT.FAILED',
        'INCOMING_PAYMENT.FAILED',
        'INCOMING_PAYMENT.EXPIRED',
      ],
    );
    assert.deepEqual(
      (['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'] as const).map((s) =>
        eventTypeOf({ type: 'INCOMING', flow: 'TRANSFER_IN' }, s),
      ),
      ['INCOMING_PAYMENT.PENDING', undefined, 'INCOMING_PAYMENT.COMPLETED', 'INCOMING_PAYMENT.FAILED'],
      'a transfer-in reports no PROCESSING either: no public contract has the event',
    );
  });

  it('checks a receive request field by field', () => {
    const good = {
      senderUmaAddress: '$a@b.com',
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 1,
      customerId: 'Customer:x',
    };
    assert.doesNotThrow(() => checkReceiveInput(good));
    const field = (input: object) => {
      try {
        checkReceiveInput({ ...good, ...input });
      } catch (err) {
        return (err as { details?: { field?: string } }).details?.field;
      }
      return undefined;
    };
    assert.equal(field({ senderUmaAddress: 'a@b.com' }), 'senderUmaAddress');
    assert.equal(field({ receivingCurrencyCode: 'usd' }), 'receivingCurrencyCode');
    assert.equal(field({ receivingCurrencyAmount: 0 }), 'receivingCurrencyAmount');
    assert.equal(field({ receivingCurrencyAmount: 100_000_000_001 }), 'receivingCurrencyAmount');
    assert.equal(field({ receiverUmaAddress: '$c@d.com' }), 'receiverUmaAddress');
    assert.equal(field({ customerId: undefined }), 'receiverUmaAddress');
    assert.equal(field({ customerId: undefined, receiverUmaAddress: '$c' }), 'receiverUmaAddress');
  });
});
