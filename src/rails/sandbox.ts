// The `sandbox` connector: the simulated rails of sandbox payments. Its outcome is planned when the payment is
// made, from the account's suffix (sandbox-outcomes.ts), and stored on the payment; the lifecycle carries it
// out (services/transactions/lifecycle.ts, process, and the delayed steps of jobs.ts). Its rail takes a
// payment at once and moves it by that plan, so a submit only acknowledges; and once a sandbox payment is
// PROCESSING it is with its rail: it cannot be cancelled, as the specification's sandbox has it.
import { SANDBOX_CONNECTOR } from '../domain/connector-routes.ts';
import { CallbackRefused, CancelRefused, type RailConnector } from './connector.ts';

export const sandboxConnector: RailConnector = {
  name: SANDBOX_CONNECTOR,
  capabilities: { payout: true, pull: true, cancel: false, poll: false, callbacks: false, batchFiles: false },
  /** Taken: the outcome planned at creation follows. */
  submit: async () => ({ status: 'PENDING' }),
  poll: async () => ({ status: 'PENDING' }),
  cancel: async () => {
    throw new CancelRefused('the sandbox rail has the payment: it moves by its planned outcome');
  },
  verifyCallback() {
    throw new CallbackRefused('the sandbox connector takes no callbacks: its outcomes are planned', 400);
  },
};
