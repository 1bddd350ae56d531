import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { useServer, type TestPlatform } from '../helpers/harness.ts';
import { balance, eventTypes, runDueJobs, transferOut } from './fixtures.ts';

describe('POST /transactions/{id}/cancel and /confirm', () => {
  let p: TestPlatform;
  // No background worker: a transfer-out stays PENDING (funded, not yet handed to its rail) until drained.
  const server = useServer({ RUN_WORKERS: 'false' });
  before(async () => {
    p = await server.platform();
  });

  it('cancels a payment not yet handed to its rail: FAILED, refunded, one event per status', async () => {
    const { customerId, id } = await transferOut(p, 400, 1_000);
    assert.equal(await balance(p, customerId), 600);
    const res = await p.api.post(`/transactions/${id}/cancel`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      [res.body.status, res.body.failureReason, res.body.refund.status, res.body.refund.reason],
      ['FAILED', 'COUNTERPARTY_POST_TX_FAILED', 'COMPLETED', 'USER_CANCELLATION'],
    );
    assert.equal(await balance(p, customerId), 1_000, 'the money is back');
    const types = await eventTypes(server, id);
    assert.deepEqual(types.slice(0, 3), [
      'OUTGOING_PAYMENT.PENDING',
      'OUTGOING_PAYMENT.PROCESSING',
      'OUTGOING_PAYMENT.FAILED',
    ]);
    await runDueJobs(server);
    assert.equal((await p.api.get(`/transactions/${id}`)).body.status, 'FAILED', 'the queued rail step does nothing');
    const again = await p.api.post(`/transactions/${id}/cancel`);
    assert.deepEqual([again.status, again.body.code], [409, 'TRANSACTION_NOT_CANCELLABLE']);
  });

  it('refuses a payment its rail already has, and an unknown one', async () => {
    const { customerId, id } = await transferOut(p, 400, 1_000);
    await runDueJobs(server);
    const res = await p.api.post(`/transactions/${id}/cancel`);
    assert.deepEqual([res.status, res.body.code], [409, 'TRANSACTION_NOT_CANCELLABLE']);
    assert.equal(await balance(p, customerId), 600, 'nothing changed');
    const missing = await p.api.post('/transactions/Transaction:00000000-0000-4000-8000-000000000000/cancel');
    assert.deepEqual([missing.status, missing.body.code], [404, 'TRANSACTION_NOT_FOUND']);
  });

  it('records when the receipt reached the customer, now or at the time given', async () => {
    const { id } = await transferOut(p, 100, 1_000);
    const at = '2026-01-02T03:04:05.000Z';
    const given = await p.api.post(`/transactions/${id}/confirm`, { receiptDeliveryConfirmedAt: at });
    assert.deepEqual([given.status, given.body.receiptDeliveryConfirmedAt], [200, at]);
    const now = await p.api.post(`/transactions/${id}/confirm`);
    assert.ok(now.body.receiptDeliveryConfirmedAt > at, `without a time, the time is now: ${JSON.stringify(now.body)}`);
    assert.equal(
      (await p.api.get(`/transactions/${id}`)).body.receiptDeliveryConfirmedAt,
      now.body.receiptDeliveryConfirmedAt,
    );
    const bad = await p.api.post(`/transactions/${id}/confirm`, { receiptDeliveryConfirmedAt: 'yesterday' });
    assert.deepEqual([bad.status, bad.body.details.field], [400, 'receiptDeliveryConfirmedAt']);
  });
});
