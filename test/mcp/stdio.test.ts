/**
 * `payouts mcp` over stdio, as a real process with the SDK's own client: against a running server (on the
 * suite's engine) with sandbox credentials, and, on SQLite, with no URL at all (a sandbox of its own). A
 * production credential is refused with the API's 403 at the first tool; bad tool input names its field.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { VARIABLES } from '../../src/config.ts';
import { after, describe, it } from '../helpers/node-test.ts';
import { engine, useServer } from '../helpers/harness.ts';
import {
  checkFaultsAndLog,
  checkListings,
  checkRefusals,
  driveFailedPayout,
  ok,
  startReceiver,
  tool,
  type Receiver,
} from './flow.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** This process's environment without any server variable of ours: the child gets only what a test gives. */
function cleanEnv(more: Record<string, string>): Record<string, string> {
  const inherited = Object.entries(process.env).filter(
    (e): e is [string, string] => e[1] !== undefined && !(e[0] in VARIABLES) && e[0] !== 'PAYOUTS_URL',
  );
  return { ...Object.fromEntries(inherited), LOG_LEVEL: 'warn', ...more };
}

const clients: Client[] = [];
after(() => Promise.all(clients.map((c) => c.close())));

/**
 * `payouts mcp ARGS…` as a process of its own, and the SDK's client on its stdin/stdout. The sources through
 * tsx, as every repository test runs the CLI (test/helpers/processes.ts): bin/payouts.mjs would run dist/
 * when it exists, which the package test rebuilds (rm -rf dist) while other files run.
 */
async function connect(args: string[], env: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', join(ROOT, 'src', 'main.ts'), 'mcp', ...args],
    env: cleanEnv(env),
    cwd: ROOT,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'payouts-test', version: '1.0.0' });
  clients.push(client);
  await client.connect(transport);
  return client;
}

describe(`payouts mcp over stdio, against a running server (${engine})`, () => {
  const server = useServer();
  let receiver: Receiver;
  after(() => receiver?.close());

  it('lists its tools and resources, and drives a failing payout to its webhook, snapshot and restore', async () => {
    receiver = await startReceiver();
    const platform = await server.platform('mcp-stdio');
    const { tokenId, clientSecret } = platform.sandbox;
    const client = await connect(['--url', server.baseUrl, '--token-id', tokenId, '--client-secret', clientSecret]);
    await checkListings(client);
    await driveFailedPayout(client, receiver);
    await checkRefusals(client);
    await checkFaultsAndLog(client);
  });

  it('refuses production credentials with the API 403, before anything is made', async () => {
    const platform = await server.platform('mcp-production');
    const { tokenId, clientSecret } = platform.production;
    const client = await connect(['--url', server.baseUrl, '--token-id', tokenId, '--client-secret', clientSecret]);
    const refused = await tool(client, 'create_customer', { outcome: 'completes' });
    assert.equal(refused.isError, true);
    assert.equal(refused.json.status, 403, refused.text);
    assert.equal(refused.json.code, 'FORBIDDEN');
    const customers = await platform.prod.get('/customers');
    assert.deepEqual(customers.body.data, [], 'no customer was made with the production token');
  });
});

describe('payouts mcp over stdio, with no URL: a sandbox of its own', { skip: engine !== 'sqlite' }, () => {
  it('starts an embedded sandbox, makes a workspace and acts in it', async () => {
    const client = await connect([]);
    const info = await ok(client, 'sandbox_info');
    assert.equal(info.origin, 'embedded');
    assert.match(info.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/2025-10-13$/);
    assert.match(info.tokenId, /^Token:/);
    const answer = await fetch(`${info.baseUrl}/customers`, {
      headers: { authorization: `Basic ${Buffer.from(`${info.tokenId}:${info.clientSecret}`).toString('base64')}` },
    });
    assert.equal(answer.status, 200, 'the app under test can call the sandbox with what sandbox_info says');
    const workspace = await ok(client, 'create_workspace', { name: 'agent' });
    assert.equal(workspace.active, true);
    const now = await ok(client, 'sandbox_info');
    assert.equal(now.tokenId, workspace.tokenId, 'the tools act in the new workspace');
    const quote = await ok(client, 'create_customer', { outcome: 'takes 6 minutes', for: 'quote' });
    const executed = await ok(client, 'create_quote', {
      sourceAccountId: quote.internalAccountId,
      destinationAccountId: quote.externalAccountId,
      amount: 5000,
      execute: true,
    });
    const id = executed.transactionId;
    assert.equal((await ok(client, 'payment_timeline', { transactionId: id })).transaction.status, 'PROCESSING');
    await ok(client, 'advance_clock', { by: '6m' });
    assert.equal((await ok(client, 'payment_timeline', { transactionId: id })).transaction.status, 'COMPLETED');
  });
});
