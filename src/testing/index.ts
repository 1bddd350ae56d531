// The test API (`import { startSandbox } from '@payouts-sandbox/server'`): see docs/testing-with-the-sandbox.md.
export {
  connectSandbox,
  startSandbox,
  type Sandbox,
  type SandboxConnection,
  type SandboxCredentials,
  type SandboxWorkspace,
  type StartSandboxOptions,
  type WebhookEnvelope,
} from './sandbox.ts';
export { checkSignatures, type SignatureCheck, type WebhookPublicKeys } from './signatures.ts';
export type { ApiAnswer, ApiClient, ApiRequest } from '../cli/api-client.ts';
export { type WaitForOptions, type WebhookDelivery, type WebhookInbox } from './webhooks.ts';
