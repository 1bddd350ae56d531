import { after, before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { startServer, type TestServer } from '../helpers/harness.ts';
import { waitFor } from '../helpers/wait.ts';
import { record, startReceiver, type Receiver } from './helpers.ts';

// The background worker runs here (a short poll), as it does in a server; the receiver may hold an answer
// for seconds, well within the POST's time-out.
const ENV = { JOB_POLL_MS: '20', WEBHOOK_TIMEOUT_MS: '10000' };

describe('webhook delivery while a receiver is slow', () => {
  let server: TestServer;
  let receiver: Receiver;
  const held: ServerResponse[] = [];

  before(async () => {
    server = await startServer(ENV);
    // Holds the answer to object A's first event until the test lets it go; answers the rest at once.
    receiver = await startReceiver((_n, got, res) => {
      if (got.body?.transaction?.id === 'A' && got.body.transaction.status === 'PENDING') held.push(res);
      else res.writeHead(200).end('ok');
    });
  });
  after(async () => {
    for (const res of held) res.writeHead(200).end('ok');
    await receiver.close();
    await server.close();
  });

  it("delivers other objects' events meanwhile, and keeps the slow object's events in order", async () => {
    const p = await server.platform();
    assert.equal((await p.api.patch('/config', { webhookEndpoint: receiver.url })).status, 200, 'endpoint set');
    await waitFor(() => receiver.received.some((r) => r.body?.type === 'TEST'), 'the TEST of the new endpoint');
    const send = (object: string, status: string) =>
      record(server, p.platformId, `OUTGOING_PAYMENT.${status}`, `Transaction:${object}`, {
        id: object,
        status,
      });
    const a1 = await send('A', 'PENDING');
    await waitFor(() => held.length === 1, "the receiver holds A's first event");
    const a2 = await send('A', 'COMPLETED');
    const others = [await send('B', 'PENDING'), await send('C', 'PENDING'), await send('B', 'COMPLETED')];
    const stateOf = async (id: string) => (await p.api.get(`/webhook-events/${id}`)).body.deliveryState;
    for (const id of others) await waitFor(async () => (await stateOf(id)) === 'DELIVERED', `${id} delivered`);
    const seen = () => receiver.received.map((r) => `${r.body?.transaction?.id}.${r.body?.transaction?.status}`);
    assert.deepEqual(
      seen().filter((s) => s.startsWith('B.')),
      ['B.PENDING', 'B.COMPLETED'],
      "B's events arrive in order",
    );
    assert.equal(seen().includes('A.COMPLETED'), false, "A's second event waits for its first");
    const first = (await p.api.get(`/webhook-events/${a1}`)).body;
    assert.equal(first.deliveryState, 'PENDING', "A's first event is still in flight");
    assert.equal(first.attempts.length, 0, "A's first POST has not timed out: the others did not wait for it");
    held.shift()!.writeHead(200).end('ok');
    await waitFor(async () => (await stateOf(a2)) === 'DELIVERED', "A's second event delivered");
    assert.equal(await stateOf(a1), 'DELIVERED', "A's first event delivered");
    const order = seen();
    assert.ok(order.indexOf('A.PENDING') < order.indexOf('A.COMPLETED'), `A in order: ${order.join(', ')}`);
  });
});
