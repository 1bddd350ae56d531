// The `manual` connector: what serves every production payment no route of CONNECTORS_FILE names. Its rail
// is an operator, who settles or fails each payment through POST /operator/settlements (services/settlement.ts):
// nothing is called out, so nothing can have left until the operator says so, and a cancel is always in time.
import { MANUAL_CONNECTOR } from '../domain/connector-routes.ts';
import { CallbackRefused, type RailConnector } from './connector.ts';

export const manualConnector: RailConnector = {
  name: MANUAL_CONNECTOR,
  capabilities: { payout: true, pull: true, cancel: true, poll: false, callbacks: false, batchFiles: false },
  /** Taken: it waits for an operator. */
  submit: async () => ({ status: 'PENDING' }),
  /** Still waiting, until an operator settles or fails it. */
  poll: async () => ({ status: 'PENDING' }),
  /** Cancelled: an operator's rail has moved nothing yet. The core applies this in the cancel's own transaction. */
  cancel: async () => ({ status: 'FAILED', reason: 'COUNTERPARTY_POST_TX_FAILED' }),
  verifyCallback() {
    throw new CallbackRefused('the manual connector takes no callbacks: an operator settles its payments', 400);
  },
};
