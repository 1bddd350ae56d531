// Which connector a new payment goes to, as the outcome stored on its row: the sandbox plans one by the
// account's suffix; production routes a payment to or from an external account by CONNECTORS_FILE (currency,
// then platform), and leaves the rest, and what no route names, to an operator (`manual`). Quotes, incoming
// payments and transfers ask here.
import { MANUAL_CONNECTOR, routeFor } from '../../domain/connector-routes.ts';
import type { Outcome } from '../../rails/sandbox-outcomes.ts';
import type { Ctx, Scope } from '../../context.ts';

/** The outcome a new payment stores: `sandbox` (the suffix plan) in the sandbox, else its route's connector. */
export function railOutcome(
  ctx: Ctx,
  scope: Scope,
  route: { currency: string; externalAccount: boolean; pull?: boolean },
  sandbox: () => Outcome,
): Outcome {
  if (scope.environment === 'sandbox') return sandbox();
  const connector = route.externalAccount
    ? routeFor(ctx.config.connectors.routes, route.currency, scope.platformId)
    : MANUAL_CONNECTOR;
  // A connector that cannot pull (a bank-file one pays out only) leaves a pull to an operator.
  if (route.pull && ctx.config.connectors.banks[connector]) return { kind: 'MANUAL' };
  return connector === MANUAL_CONNECTOR ? { kind: 'MANUAL' } : { kind: 'CONNECTOR', connector };
}
