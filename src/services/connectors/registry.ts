// The one registry of rail connectors: every connector the core talks to, behind rails/connector.ts's
// interface, by name. `manual` and `sandbox` are built in; the HTTP ones are CONNECTORS_FILE's. What a
// payment may do at its rail (be cancelled, be polled) is asked of its connector's declared capabilities.
import { MANUAL_CONNECTOR, SANDBOX_CONNECTOR } from '../../domain/connector-routes.ts';
import type { RailConnector } from '../../rails/connector.ts';
import { makeHttpConnector } from '../../rails/http/connector.ts';
import { manualConnector } from '../../rails/manual.ts';
import { sandboxConnector } from '../../rails/sandbox.ts';
import type { Outcome } from '../../rails/sandbox-outcomes.ts';
import { type Ctx, wallNowMs } from '../../context.ts';

export type ConnectorRegistry = ReadonlyMap<string, RailConnector>;

/** The built-in connectors, then one HTTP connector per connector CONNECTORS_FILE names. */
export function makeConnectorRegistry(ctx: Ctx): ConnectorRegistry {
  const registry = new Map<string, RailConnector>([
    [MANUAL_CONNECTOR, manualConnector],
    [SANDBOX_CONNECTOR, sandboxConnector],
  ]);
  for (const c of Object.values(ctx.config.connectors.byName))
    registry.set(
      c.name,
      makeHttpConnector(c, () => wallNowMs(ctx)),
    );
  return registry;
}

/** Whether a connector is one CONNECTORS_FILE names (it calls out), rather than a built-in one. */
export const isBuiltIn = (name: string): boolean => name === MANUAL_CONNECTOR || name === SANDBOX_CONNECTOR;

/**
 * The connector a payment's stored outcome names. The planned kinds (COMPLETE, FAIL_AFTER, …) are the
 * sandbox's; in production the only one is a credit to an internal account, which needs no rail and
 * completes as it processes.
 */
export function connectorNameOf(outcome: Outcome): string {
  if (outcome.kind === 'CONNECTOR') return outcome.connector;
  return outcome.kind === 'MANUAL' ? MANUAL_CONNECTOR : SANDBOX_CONNECTOR;
}
