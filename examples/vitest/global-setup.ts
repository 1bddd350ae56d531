// Runs once, in Vitest's main process, before any test file: one sandbox for the whole run, on a temporary
// embedded database, stopped (and its folder removed) when the run ends. Test files run in workers, so they
// get the sandbox's address and credentials through `provide`/`inject`, not through a shared object.
import { startSandbox } from '@payouts-sandbox/server';
import type { TestProject } from 'vitest/node';

export default async function setup(project: TestProject) {
  // A CI that allows named ports only sets WEBHOOK_PORT_BASE: this receiver takes it, the workers' the next ones.
  const sandbox = await startSandbox({ webhookPort: Number(process.env.WEBHOOK_PORT_BASE || 0) });
  project.provide('sandboxBaseUrl', sandbox.baseUrl);
  project.provide('sandboxCredentials', {
    tokenId: sandbox.credentials.tokenId,
    clientSecret: sandbox.credentials.clientSecret,
  });
  return () => sandbox.close();
}

declare module 'vitest' {
  export interface ProvidedContext {
    sandboxBaseUrl: string;
    sandboxCredentials: { tokenId: string; clientSecret: string };
  }
}
