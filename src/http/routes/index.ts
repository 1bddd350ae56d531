import type { Http } from '../http.ts';
import type { Services } from '../../services/index.ts';
import { beneficialOwnerRoutes } from './beneficial-owners.ts';
import { configRoutes } from './config.ts';
import { customerRoutes } from './customers.ts';
import { documentRoutes } from './documents.ts';
import { externalAccountRoutes } from './external-accounts.ts';
import { incomingPaymentRoutes } from './incoming-payments.ts';
import { internalAccountRoutes } from './internal-accounts.ts';
import { invitationRoutes } from './invitations.ts';
import { receiverRoutes } from './receiver.ts';
import { sandboxClockRoutes } from './sandbox-clock.ts';
import { sandboxWorkspaceRoutes } from './sandbox-workspaces.ts';
import { quoteRoutes } from './quotes.ts';
import { tokenRoutes } from './tokens.ts';
import { transactionRoutes, transferRoutes } from './transactions.ts';
import { verificationRoutes } from './verifications.ts';
import { webhookRoutes } from './webhooks.ts';

export function registerRoutes(api: Http, services: Services): void {
  tokenRoutes(api, services);
  customerRoutes(api, services);
  internalAccountRoutes(api, services);
  sandboxClockRoutes(api, services);
  sandboxWorkspaceRoutes(api, services);
  externalAccountRoutes(api, services);
  quoteRoutes(api, services);
  transactionRoutes(api, services);
  transferRoutes(api, services);
  incomingPaymentRoutes(api, services);
  invitationRoutes(api, services);
  beneficialOwnerRoutes(api, services);
  documentRoutes(api, services);
  verificationRoutes(api, services);
  receiverRoutes(api, services);
  configRoutes(api, services);
  webhookRoutes(api, services);
}
