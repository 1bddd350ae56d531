// The rail connectors of this process: the HTTP ones CONNECTORS_FILE names, their jobs, the callbacks they
// send, and what an operator reads of them (the attention list, recent rail events, reachability).
import type { Registry } from 'prom-client';
import { AppError, notFound } from '../../domain/errors.ts';
import type { JobWorker } from '../../jobs/worker.ts';
import { CallbackRefused, type InboundCallback } from '../../rails/connector.ts';
import type { RailEventsTable, RailPaymentsTable } from '../../store/schema.ts';
import { type Ctx, type Scope, wallNowMs } from '../../context.ts';
import type { Failure } from '../transactions/lifecycle.ts';
import { pollJob, submitJob, type CallDeps } from './calls.ts';
import { cancelAtRail } from './cancel.ts';
import { takeRailEvent, type TakenEvent } from './events.ts';
import { checkHealth, type ConnectorHealth } from './health.ts';
import { InFlightBound } from './in-flight.ts';
import { makeConnectorMetrics } from './metrics.ts';
import { type ConnectorRegistry, isBuiltIn, makeConnectorRegistry } from './registry.ts';

export type { ConnectorHealth } from './health.ts';

export interface ConnectorService {
  /** The connectors CONNECTORS_FILE names (the built-in `manual` and `sandbox` are not listed). */
  names(): string[];
  /** Every connector by name, the built-in ones included: what each can do is asked here. */
  registry: ConnectorRegistry;
  /**
   * Cancels a PROCESSING payment an HTTP connector holds: the call out (never inside a database transaction),
   * then the answer through the one transition path; FAILED and refunded as `failure` says. Raises
   * TRANSACTION_NOT_CANCELLABLE, with details.reason naming why nothing changed.
   */
  cancel(scope: Scope, id: string, failure: Failure): Promise<void>;
  /**
   * Verifies and takes a connector's callback. Raises REFERENCE_NOT_FOUND (no such connector),
   * UNAUTHORIZED (unsigned, forged or stale) and INVALID_INPUT (not the protocol's shape).
   */
  receiveCallback(name: string, callback: InboundCallback): Promise<TakenEvent>;
  /** Payments handed to a connector that wait for an answer or a person, oldest first. */
  attention(limit: number): Promise<RailPaymentsTable[]>;
  /** The latest rail events, newest first, applied or not. */
  recentEvents(limit: number): Promise<RailEventsTable[]>;
  /**
   * Whether each connector answers its health check (GET {url}/healthz), waiting for each at most its
   * time-out, or `waitMs` when that is shorter (a page that must not hang on a connector that does not answer).
   */
  check(waitMs?: number): Promise<ConnectorHealth[]>;
}

export function makeConnectorService(ctx: Ctx, worker: JobWorker, registry: Registry): ConnectorService {
  const configured = ctx.config.connectors.byName;
  const connectors = makeConnectorRegistry(ctx);
  const metrics = makeConnectorMetrics(ctx.store, registry);
  const deps: CallDeps = {
    ctx,
    connectors,
    metrics,
    pollIntervalMs: (name) => configured[name]?.pollIntervalMs ?? 60_000,
    bounds: new Map(Object.values(configured).map((c) => [c.name, new InFlightBound(c.maxInFlight)])),
  };
  worker.register('connector.submit', ({ id }, _job, scope) => submitJob(deps, id, scope));
  worker.register('connector.poll', ({ id }, _job, scope) => pollJob(deps, id, scope));
  return {
    names: () => [...connectors.keys()].filter((name) => !isBuiltIn(name)),
    registry: connectors,
    cancel: (scope, id, failure) => cancelAtRail(deps, scope, id, failure),
    async receiveCallback(name, callback) {
      const connector = connectors.get(name);
      if (!connector?.capabilities.callbacks) throw notFound('Connector', name, 'REFERENCE_NOT_FOUND');
      let events;
      try {
        events = connector.verifyCallback(callback, wallNowMs(ctx));
      } catch (err) {
        if (!(err instanceof CallbackRefused)) throw err;
        if (err.status === 401) throw new AppError('UNAUTHORIZED', `Callback refused: ${err.message}`);
        throw new AppError('INVALID_INPUT', `Callback refused: ${err.message}`, {
          field: 'body',
          rule: 'connectorEvent',
        });
      }
      let taken: TakenEvent = { result: 'NO_CHANGE' };
      for (const event of events) {
        taken = await takeRailEvent(ctx, name, event);
        metrics.event(name, event.status, taken.result);
      }
      return taken;
    },
    attention: (limit) =>
      ctx.store.db
        .selectFrom('rail_payments')
        // Still waiting: one an operator settled or failed meanwhile has left the list. PENDING: a bank-file
        // connector's payment whose file its schema refused (services/bank/export.ts).
        .innerJoin('transactions', 'transactions.id', 'rail_payments.transaction_id')
        .selectAll('rail_payments')
        .where('transactions.status', 'in', ['PENDING', 'PROCESSING'])
        .where('attention', 'is not', null)
        .where('state', '!=', 'DONE')
        .orderBy('attention_since')
        .limit(limit)
        .execute(),
    recentEvents: (limit) =>
      ctx.store.db.selectFrom('rail_events').selectAll().orderBy('received_at', 'desc').limit(limit).execute(),
    check: (waitMs) => checkHealth(Object.values(configured), waitMs),
  };
}
