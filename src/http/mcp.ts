// The MCP server on the running service, as streamable HTTP at POST /mcp, when MCP_HTTP=true. Stateless:
// each POST is answered by a server of its own (JSON, no session to keep), authenticated with the same
// sandbox credentials as the API; production credentials are refused with the API's 403. The tools call
// this server's API over loopback HTTP with the caller's own credentials, so every call is checked, logged
// in the request log and faulted exactly as if the agent had made it over the network.
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyRequest } from 'fastify';
import { makeApiClient } from '../cli/api-client.ts';
import { AppError } from '../domain/errors.ts';
import { buildMcpServer } from '../mcp/server.ts';
import { NO_ANSWER_HINT, type McpSession, type SandboxCredentials } from '../mcp/session.ts';
import type { Services } from '../services/index.ts';
import { parseBasic } from './auth.ts';
import { API_VERSION, type Http } from './http.ts';

const ADMIN_HEADER = 'x-sandbox-admin-key';

/**
 * The caller's session: the tools call this very server over loopback HTTP, at the address the /mcp request
 * came in on, with the caller's own credentials. Not Fastify's inject: a fault rule that drops the
 * connection must drop a real one (an injected request has no socket to close, and would never end).
 */
function sessionOf(
  request: FastifyRequest,
  publicBaseUrl: string,
  credentials: SandboxCredentials,
  adminKey: string | undefined,
): McpSession {
  const { localAddress = '127.0.0.1', localPort } = request.raw.socket;
  // An IPv4 client of a dual-stack socket shows as ::ffff:a.b.c.d.
  const address = localAddress.replace(/^::ffff:(?=\d+\.)/, '');
  const here = `http://${address.includes(':') ? `[${address}]` : address}:${localPort}/${API_VERSION}`;
  const api = makeApiClient(here, credentials, NO_ANSWER_HINT);
  const anonymous = makeApiClient(here, undefined, NO_ANSWER_HINT);
  return {
    baseUrl: publicBaseUrl,
    origin: 'server',
    adminKey,
    api: () => api,
    anonymous: () => anonymous,
    // The caller holds its credentials already; nothing secret goes back.
    credentials: () => undefined,
    // Checked before the session was made: the credentials are a sandbox token's.
    ensureSandbox: async () => undefined,
  };
}

export function mcpRoutes(app: Http, services: Services): void {
  const baseUrl = `${services.ctx.config.publicUrl}/${API_VERSION}`;
  // Only POST: a stateless server offers no stream to GET, and the router answers GET and DELETE with a 405
  // naming POST, which the SDK's client takes as "no stream here".
  app.post('/mcp', {
    schema: { hide: true },
    bodyLimit: services.ctx.config.bodyLimitBytes,
    handler: async (request, reply) => {
      const { username, secret } = parseBasic(request.headers.authorization);
      const principal = await services.tokens.authenticate(username, secret);
      if (principal.environment !== 'sandbox') {
        throw new AppError(
          'FORBIDDEN',
          'The MCP server takes sandbox credentials only: production credentials are refused',
        );
      }
      const given = request.headers[ADMIN_HEADER];
      const credentials = { tokenId: username, clientSecret: secret };
      const session = sessionOf(request, baseUrl, credentials, typeof given === 'string' ? given : undefined);
      const server = buildMcpServer(session);
      const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
      reply.hijack();
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    },
  });
}
