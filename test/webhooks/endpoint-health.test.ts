/**
 * The endpoint's failure report (src/webhooks/endpoint-health.ts): what an attempt's outcome does to it,
 * and how the change is written.
 */
import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { migratedStore } from '../helpers/harness.ts';
import type { Scope } from '../../src/context.ts';
import { healthChange, reportEndpointHealth, type HealthChange } from '../../src/webhooks/endpoint-health.ts';

describe('endpoint health: what an outcome changes', () => {
  it('a run that ran out of its retry window reports the endpoint failing, whatever the report was', () => {
    const over = { kind: 'FAILED', windowOver: true } as const;
    assert.equal(healthChange(over, false), 'REPORT_FAILING');
    assert.equal(healthChange(over, true), 'REPORT_FAILING');
  });

  it('a success clears only a report that was there when its attempt began', () => {
    assert.equal(healthChange({ kind: 'DELIVERED' }, true), 'CLEAR');
    assert.equal(healthChange({ kind: 'DELIVERED' }, false), 'NONE', 'a report set since stands');
  });

  it('a retry, or a single-attempt event that failed, says nothing about the endpoint', () => {
    for (const failing of [true, false]) {
      assert.equal(healthChange({ kind: 'RETRY', inMs: 10_000 }, failing), 'NONE');
      assert.equal(healthChange({ kind: 'FAILED', windowOver: false }, failing), 'NONE');
    }
  });
});

describe('endpoint health: the report as written', () => {
  const storeOf = migratedStore();
  const T0 = 1_700_000_000_000;
  const scope: Scope = { platformId: 'Platform:health', environment: 'sandbox' };

  it('keeps the time of the first report, and a clear clears it', async () => {
    const store = storeOf();
    await store.db.insertInto('platforms').values({ id: scope.platformId, name: 'health', created_at: 0n }).execute();
    await store.db
      .insertInto('platform_configs')
      .values({
        id: 'PlatformConfig:health',
        platform_id: scope.platformId,
        environment: 'sandbox',
        uma_domain: 'health.sandbox.uma.localhost',
        webhook_endpoint: 'https://health.example/hooks',
        supported_currencies: '[]',
        clock_offset_ms: 0n,
        webhook_envelope: 'LEGACY',
        webhook_failing_since: null,
        created_at: 0n,
        updated_at: 0n,
      })
      .execute();
    const failingSince = async () =>
      (
        await store.db
          .selectFrom('platform_configs')
          .select('webhook_failing_since')
          .where('platform_id', '=', scope.platformId)
          .executeTakeFirstOrThrow()
      ).webhook_failing_since;
    const write = (change: HealthChange, atMs: number) =>
      store.tx((trx) => reportEndpointHealth(trx, scope, change, atMs));
    await write('NONE', T0);
    assert.equal(await failingSince(), null, 'nothing to write');
    await write('REPORT_FAILING', T0);
    assert.equal(await failingSince(), BigInt(T0), 'reported failing since the run gave up');
    await write('REPORT_FAILING', T0 + 60_000);
    assert.equal(await failingSince(), BigInt(T0), 'a later failure keeps the first time');
    await write('CLEAR', T0 + 120_000);
    assert.equal(await failingSince(), null, 'a success clears it');
  });
});
