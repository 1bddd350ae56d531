/**
 * The endpoint's failure report (`webhook_failing_since`, shown on GET /config and the dashboard): set
 * when an event runs out of retries, cleared by the next success.
 */
import type { Scope } from '../context.ts';
import type { Tx } from '../store/db.ts';
import type { DeliveryStep } from './schedule.ts';

/** What one attempt's outcome does to the report. */
export type HealthChange = 'REPORT_FAILING' | 'CLEAR' | 'NONE';

/**
 * A success clears only a report that was there when its attempt began (`failingAtStart`): one set since
 * then came from a failure that ends after this success, and stands until the next one. A ONCE event that
 * fails (a TEST, an approval request) says nothing about the endpoint's health.
 */
export function healthChange(step: DeliveryStep, failingAtStart: boolean): HealthChange {
  if (step.kind === 'DELIVERED' && failingAtStart) return 'CLEAR';
  if (step.kind === 'FAILED' && step.windowOver) return 'REPORT_FAILING';
  return 'NONE';
}

/**
 * Writes the change in the attempt's transaction. Both updates are guarded, so that a report set first
 * keeps its time and a report cleared by another process stays cleared.
 */
export async function reportEndpointHealth(trx: Tx, scope: Scope, change: HealthChange, atMs: number): Promise<void> {
  if (change === 'NONE') return;
  const configs = trx
    .updateTable('platform_configs')
    .where('platform_id', '=', scope.platformId)
    .where('environment', '=', scope.environment);
  if (change === 'CLEAR')
    await configs.set({ webhook_failing_since: null }).where('webhook_failing_since', 'is not', null).execute();
  else
    await configs
      .set({ webhook_failing_since: BigInt(atMs) })
      .where('webhook_failing_since', 'is', null)
      .execute();
}
