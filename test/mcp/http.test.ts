/**
 * The MCP server on a running service, as streamable HTTP at /mcp (MCP_HTTP=true), with the SDK's own
 * client and the API's sandbox credentials: the same tools and scenario as over stdio. Production
 * credentials and missing ones are refused with the API's error body; with MCP_HTTP unset there is no /mcp.
 */
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { after, describe, it } from '../helpers/node-test.ts';
import { basicAuth, engine, useServer } from '../helpers/harness.ts';
import type { Credentials } from '../../src/services/platforms.ts';
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

const clients: Client[] = [];
after(() => Promise.all(clients.map((c) => c.close())));

const ADMIN_KEY = 'mcp-test-admin-key-0123456789abcdef0123';

async function connect(serverUrl: string, credentials: Credentials, more: Record<string, string> = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(`${serverUrl}/mcp`), {
    requestInit: { headers: { authorization: basicAuth(credentials), ...more } },
  });
  const client = new Client({ name: 'payouts-test', version: '1.0.0' });
  clients.push(client);
  await client.connect(transport);
  return client;
}

/** A raw JSON-RPC initialize, to read the HTTP answer itself. */
function initialize(serverUrl: string, authorization?: string): Promise<Response> {
  return fetch(`${serverUrl}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(authorization ? { authorization } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
}

describe(`the MCP server at /mcp on a running service (${engine})`, () => {
  // Workspaces need the admin key here (as on any server that is not on a loopback address).
  const server = useServer({ MCP_HTTP: 'true', SANDBOX_WORKSPACES: 'admin', SANDBOX_ADMIN_KEY: ADMIN_KEY });
  let receiver: Receiver;
  after(() => receiver?.close());

  it('lists its tools and resources, and drives a failing payout to its webhook, snapshot and restore', async () => {
    receiver = await startReceiver();
    const platform = await server.platform('mcp-http');
    const client = await connect(server.baseUrl, platform.sandbox);
    await checkListings(client);
    await driveFailedPayout(client, receiver);
    await checkRefusals(client);
    await checkFaultsAndLog(client);
  });

  it('makes a workspace (with the admin key it was sent) whose credentials a new connection then uses', async () => {
    const platform = await server.platform('mcp-http-workspaces');
    const without = await tool(await connect(server.baseUrl, platform.sandbox), 'create_workspace', {});
    assert.equal(without.isError, true);
    assert.equal(without.json.status, 403, `the API's refusal: ${without.text}`);
    const client = await connect(server.baseUrl, platform.sandbox, { 'x-sandbox-admin-key': ADMIN_KEY });
    const made = await ok(client, 'create_workspace', { name: 'from-mcp' });
    assert.equal(made.active, false, 'over HTTP the connection stays with its own credentials');
    const other = await connect(server.baseUrl, { tokenId: made.tokenId, clientSecret: made.clientSecret });
    const info = await ok(other, 'sandbox_info');
    assert.equal(info.origin, 'server');
    assert.equal(info.clientSecret, undefined, 'nothing secret is handed back over HTTP');
  });

  it('refuses production credentials and missing ones with the API error body', async () => {
    const platform = await server.platform('mcp-http-production');
    const production = await initialize(server.baseUrl, basicAuth(platform.production));
    assert.equal(production.status, 403);
    const body = await production.json();
    assert.equal(body.code, 'FORBIDDEN');
    assert.match(body.message, /production credentials are refused/);
    const anonymous = await initialize(server.baseUrl);
    assert.equal(anonymous.status, 401);
    assert.equal((await anonymous.json()).code, 'UNAUTHORIZED');
    const customers = await platform.prod.get('/customers');
    assert.deepEqual(customers.body.data, []);
  });

  it('answers GET /mcp with a 405 naming POST (a stateless server offers no stream)', async () => {
    const platform = await server.platform('mcp-http-get');
    const answer = await fetch(`${server.baseUrl}/mcp`, { headers: { authorization: basicAuth(platform.sandbox) } });
    assert.equal(answer.status, 405);
    assert.equal(answer.headers.get('allow'), 'POST');
  });
});

describe('without MCP_HTTP', () => {
  const server = useServer();
  it('serves no /mcp', async () => {
    const platform = await server.platform('no-mcp');
    const answer = await initialize(server.baseUrl, basicAuth(platform.sandbox));
    assert.equal(answer.status, 404);
  });

  it("answers a payment's postings to sandbox credentials only, and 404 for another workspace's id", async () => {
    const platform = await server.platform('postings');
    const other = await server.platform('postings-other');
    const { body: created } = await platform.api.post('/sandbox/trigger', { event: 'OUTGOING_PAYMENT.FAILED' });
    const path = `/sandbox/transactions/${created.objects.transactionId}/postings`;
    const mine = await platform.api.get(path);
    assert.equal(mine.status, 200, JSON.stringify(mine.body));
    assert.ok(mine.body.data.length >= 2, 'the debit and its refund');
    assert.equal((await other.api.get(path)).status, 404, "another workspace's payment is not found");
    const production = await platform.prod.get(path);
    assert.equal(production.status, 403);
    assert.equal(production.body.code, 'FORBIDDEN');
  });
});
