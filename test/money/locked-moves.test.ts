import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { present } from '../../src/domain/assert.ts';
import { useServer, type TestPlatform } from '../helpers/harness.ts';
import { balance, eventTypes, transferOut } from './fixtures.ts';

// A step that holds its payment under lock (the rail steps, cancel, an operator's settlement) writes the
// payment's move with the transaction's other deferred rows, without waiting for its count of changed rows:
// nothing else can have moved the row. These tests break that premise on purpose and check that the move
// then fails whole instead of writing its ledger entry and events without the status they describe.
describe('moves of a payment held under its lock', () => {
  let p: TestPlatform;
  const server = useServer({ RUN_WORKERS: 'false' });
  before(async () => {
    p = await server.platform();
  });

  async function entriesOf(id: string): Promise<number> {
    const rows = await server.app.store.db
      .selectFrom('journal_entries')
      .select('id')
      .where('reference', '=', id)
      .execute();
    return rows.length;
  }

  it('fail whole, writing nothing, when the row is not in the state the step read under its lock', async () => {
    const { id, customerId } = await transferOut(p, 2_500);
    const scope = { platformId: p.platformId, environment: 'sandbox' as const };
    const { transactions } = server.app.services;
    const was = {
      events: await eventTypes(server, id),
      entries: await entriesOf(id),
      balance: await balance(p, customerId),
    };

    await assert.rejects(
      server.app.store.tx(async (trx) => {
        const payment = present(await transactions.loadForUpdate(trx, scope, id), 'the payment');
        // What the lock rules out, done here to break it: the row moves behind the copy the step holds.
        await trx.updateTable('transactions').set({ status: 'PROCESSING' }).where('id', '=', id).execute();
        await transactions.process(trx, scope, payment);
      }),
      /null|status/i,
      'the move of a row that is not where the step left it is refused',
    );

    assert.equal((await p.api.get(`/transactions/${id}`)).body.status, 'PENDING', 'the payment is as it was');
    assert.deepEqual(await eventTypes(server, id), was.events, 'no event of the move');
    assert.equal(await entriesOf(id), was.entries, 'no ledger entry of the move');
    assert.equal(await balance(p, customerId), was.balance, 'no balance moved');
  });

  it('write two moves of one payment in one transaction as one, from the state it was read in', async () => {
    const { id, customerId } = await transferOut(p, 2_500);
    // Cancel moves it twice under one lock: PENDING → PROCESSING, then → FAILED with its refund.
    const res = await p.api.post(`/transactions/${id}/cancel`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const stored = (await p.api.get(`/transactions/${id}`)).body;
    assert.deepEqual([stored.status, stored.refund?.status], ['FAILED', 'COMPLETED'], 'stored as answered');
    assert.deepEqual((await eventTypes(server, id)).slice(0, 3), [
      'OUTGOING_PAYMENT.PENDING',
      'OUTGOING_PAYMENT.PROCESSING',
      'OUTGOING_PAYMENT.FAILED',
    ]);
    assert.equal(await balance(p, customerId), 10_000, 'refunded');
  });
});
