/**
 * What a delivery job finds when it runs (src/webhooks/due-event.ts), on a bare migrated store: the event
 * to send, its turn to wait behind an earlier event of its object (src/webhooks/object-order.ts), or
 * nothing left to do.
 */
import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { migratedStore } from '../helpers/harness.ts';
import type { Scope } from '../../src/context.ts';
import type { DeliverPayload } from '../../src/jobs/kinds.ts';
import type { Store } from '../../src/store/db.ts';
import type { DeliveryState } from '../../src/store/schema.ts';
import { dueEvent } from '../../src/webhooks/due-event.ts';
import { deliveryOrderKey } from '../../src/webhooks/object-order.ts';

const T0 = 1_700_000_000_000n;

/** A platform with a sandbox config whose endpoint is `endpoint`, reported failing when `failing`. */
async function platform(store: Store, name: string, endpoint: string | null, failing = false): Promise<Scope> {
  const scope: Scope = { platformId: `Platform:${name}`, environment: 'sandbox' };
  await store.db.insertInto('platforms').values({ id: scope.platformId, name, created_at: T0 }).execute();
  await store.db
    .insertInto('platform_configs')
    .values({
      id: `PlatformConfig:${name}`,
      platform_id: scope.platformId,
      environment: 'sandbox',
      uma_domain: `${name}.sandbox.uma.localhost`,
      webhook_endpoint: endpoint,
      supported_currencies: '[]',
      clock_offset_ms: 0n,
      webhook_envelope: 'CURRENT',
      webhook_failing_since: failing ? T0 : null,
      created_at: T0,
      updated_at: T0,
    })
    .execute();
  return scope;
}

interface EventRow {
  id: string;
  objectId: string;
  atMs: bigint;
  state?: DeliveryState;
  run?: bigint;
}

async function event(store: Store, scope: Scope, e: EventRow): Promise<DeliverPayload> {
  await store.db
    .insertInto('events')
    .values({
      id: e.id,
      platform_id: scope.platformId,
      environment: scope.environment,
      type: 'OUTGOING_PAYMENT.PENDING',
      object_id: e.objectId,
      data: '{}',
      created_at: e.atMs,
      delivery_state: e.state ?? 'PENDING',
      delivery_run: e.run ?? 1n,
      delivery_updated_at: null,
    })
    .execute();
  return { eventId: e.id, objectId: e.objectId, run: Number(e.run ?? 1n), attempt: 1 };
}

/** What the job does, as a word: SEND, WAIT or NOTHING. */
async function verdict(store: Store, payload: DeliverPayload, scope: Scope): Promise<string> {
  const due = await dueEvent(store.db, payload, scope);
  return due === undefined ? 'NOTHING' : due === 'WAIT' ? 'WAIT' : 'SEND';
}

describe("a delivery job's event", () => {
  const storeOf = migratedStore();

  it('waits while an earlier event of its object is pending, and only then; ties go by id', async () => {
    const store = storeOf();
    const scope = await platform(store, 'order', 'https://receiver.example/hooks');
    const first = await event(store, scope, { id: 'Webhook:o-2', objectId: 'Transaction:1', atMs: T0 });
    const sameMs = await event(store, scope, { id: 'Webhook:o-3', objectId: 'Transaction:1', atMs: T0 });
    const later = await event(store, scope, { id: 'Webhook:o-1', objectId: 'Transaction:1', atMs: T0 + 5n });
    const otherObject = await event(store, scope, { id: 'Webhook:o-0', objectId: 'Transaction:2', atMs: T0 + 9n });
    assert.equal(await verdict(store, first, scope), 'SEND', 'the oldest event of the object goes');
    assert.equal(await verdict(store, sameMs, scope), 'WAIT', 'the same millisecond with a larger id waits');
    assert.equal(await verdict(store, later, scope), 'WAIT', 'a later event waits, whatever its id');
    assert.equal(await verdict(store, otherObject, scope), 'SEND', "another object's events do not hold it");
    await store.db.updateTable('events').set({ delivery_state: 'FAILED' }).where('id', '=', first.eventId).execute();
    assert.equal(await verdict(store, sameMs, scope), 'SEND', 'an earlier event that gave up holds nothing');
    assert.equal(await verdict(store, later, scope), 'WAIT', 'the later one still waits behind the middle one');
  });

  it("is not held by the same object id's events in another platform", async () => {
    const store = storeOf();
    const mine = await platform(store, 'mine', 'https://mine.example/hooks');
    const theirs = await platform(store, 'theirs', 'https://theirs.example/hooks');
    await event(store, theirs, { id: 'Webhook:t-1', objectId: 'Transaction:shared', atMs: T0 });
    const payload = await event(store, mine, { id: 'Webhook:t-2', objectId: 'Transaction:shared', atMs: T0 + 1n });
    assert.equal(await verdict(store, payload, mine), 'SEND', 'scopes do not wait on each other');
    assert.equal(await verdict(store, payload, theirs), 'NOTHING', 'nor read each other');
  });

  it('comes with the settings of the attempt: endpoint, envelope, failure report', async () => {
    const store = storeOf();
    const scope = await platform(store, 'settings', null, true);
    const payload = await event(store, scope, { id: 'Webhook:s-1', objectId: 'Transaction:s', atMs: T0 });
    const due = await dueEvent(store.db, payload, scope);
    assert.ok(due !== undefined && due !== 'WAIT', 'the event is due');
    assert.equal(due.event.id, 'Webhook:s-1', 'the event itself');
    assert.equal(due.endpoint, null, 'no endpoint configured');
    assert.equal(due.envelope, 'CURRENT', 'the envelope in effect');
    assert.equal(due.failing, true, 'the endpoint is reported failing');
  });

  it('is nothing to do once settled, redelivered since, or already attempted', async () => {
    const store = storeOf();
    const scope = await platform(store, 'done', 'https://done.example/hooks');
    const delivered = await event(store, scope, { id: 'Webhook:d-1', objectId: 'A', atMs: T0, state: 'DELIVERED' });
    assert.equal(await verdict(store, delivered, scope), 'NOTHING', 'a delivered event');
    const stale = await event(store, scope, { id: 'Webhook:d-2', objectId: 'B', atMs: T0, run: 2n });
    assert.equal(await verdict(store, { ...stale, run: 1 }, scope), 'NOTHING', 'a job of an earlier run');
    assert.equal(await verdict(store, stale, scope), 'SEND', 'the current run goes');
    await store.db
      .insertInto('webhook_attempts')
      .values({
        event_id: stale.eventId,
        run: 2n,
        attempt: 1n,
        url: 'https://done.example/hooks',
        started_at: T0,
        status_code: 500n,
        latency_ms: 3n,
        error: 'answered 500',
        response_body: null,
        request_headers: null,
        request_body: null,
      })
      .execute();
    assert.equal(await verdict(store, stale, scope), 'NOTHING', 'an attempt a process recorded before it died');
    assert.equal(await verdict(store, { ...stale, attempt: 2 }, scope), 'SEND', 'the next attempt goes');
  });

  it("runs in the worker's lane keyed by its object, or by itself when the job predates object ids", () => {
    assert.equal(
      deliveryOrderKey({ eventId: 'Webhook:1', objectId: 'Transaction:9', run: 1, attempt: 1 }),
      'Transaction:9',
    );
    assert.equal(deliveryOrderKey({ eventId: 'Webhook:1', run: 1, attempt: 1 }), 'Webhook:1');
  });
});
