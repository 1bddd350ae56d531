// The MCP server over the sandbox (docs/agents.md): its tools and its two resources, the API's OpenAPI
// document and the sandbox tables. The same server runs over stdio (`payouts mcp`) and, per request, over
// streamable HTTP on a running service (`/mcp`, MCP_HTTP=true); only the session differs.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { VERSION } from '../version.ts';
import { sandboxTables } from './outcomes.ts';
import { call, type McpSession } from './session.ts';
import { diagnosticTools } from './tools-diagnostics.ts';
import { paymentToolsOf } from './tools-payments.ts';
import { sandboxTools } from './tools-sandbox.ts';

export const OPENAPI_URI = 'payouts://openapi.json';
export const TABLES_URI = 'payouts://sandbox/tables.json';

const INSTRUCTIONS =
  'Tools over a payouts sandbox (sandbox credentials only). A typical run: create_customer with the outcome ' +
  'you want (see the sandbox tables resource), set_webhooks to your receiver, pay_out, then payment_timeline ' +
  'and webhook_deliveries; advance_clock for delayed outcomes; snapshot and restore_snapshot to go back. ' +
  "Every refusal is the API's error body.";

export function buildMcpServer(session: McpSession): McpServer {
  const server = new McpServer({ name: 'payouts-sandbox', version: VERSION }, { instructions: INSTRUCTIONS });
  sandboxTools(server, session);
  paymentToolsOf(server, session);
  diagnosticTools(server, session);
  server.registerResource(
    'openapi',
    OPENAPI_URI,
    { description: "The API's OpenAPI 3.1 document, as the server serves it", mimeType: 'application/json' },
    async (uri) => {
      const document = await call(session.anonymous(), { method: 'GET', path: '/openapi.json' });
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(document) }] };
    },
  );
  server.registerResource(
    'sandbox-tables',
    TABLES_URI,
    {
      description:
        'What the sandbox does by the last three digits of an external account: every outcome by name, for ' +
        'transfers and quotes, and the beneficiary check',
      mimeType: 'application/json',
    },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(sandboxTables(), null, 2) }],
    }),
  );
  return server;
}
