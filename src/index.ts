// The package's library entry (`import … from '@payouts-sandbox/server'`): what a program or a test suite
// needs to run the service in its own process. The command line is bin/payouts.mjs, not this file.
export { createApp, type App, type AppOptions } from './app.ts';
export { openServices } from './open-services.ts';
export { ConfigError, loadConfig, VARIABLES, type Config, type LoadOptions } from './config.ts';
export { VERSION } from './version.ts';
export {
  checkSignatures,
  connectSandbox,
  type ApiAnswer,
  type ApiClient,
  type ApiRequest,
  startSandbox,
  type Sandbox,
  type SandboxConnection,
  type SandboxCredentials,
  type SandboxWorkspace,
  type SignatureCheck,
  type StartSandboxOptions,
  type WaitForOptions,
  type WebhookDelivery,
  type WebhookEnvelope,
  type WebhookInbox,
  type WebhookPublicKeys,
} from './testing/index.ts';
