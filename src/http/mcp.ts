// The MCP server on the running service, as streamable HTTP at POST /mcp, when MCP_HTTP=true. Stateless:
// each POST is answered by a server of its own (JSON, no session to keep), authenticated with the same
// sandbox credentials as the API; production credentials are refused with the API's 403. The tools call
// the API in this process (Fastify's inject) with the caller's own Authorization, so every call is
// checked, logged in the request log and faulted exactly as if the agent had made it over the network.
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ApiClient, ApiRequest } from '../cli/api-client.ts';
import { AppError } from '../domain/errors.ts';
import { buildMcpServer } from '../mcp/server.ts';
import type { McpSession } from '../mcp/session.ts';
import type { Services } from '../services/index.ts';
import { parseBasic } from './auth.ts';
import { API_VERSION, type Http } from './http.ts';

const ADMIN_HEADER = 'x-sandbox-admin-key';

/** A client of this process's API: the same routes, hooks and answers as over the network, without a socket. */
function injectedClient(app: Http, baseUrl: string, authorization: string | undefined): ApiClient {
  return {
    baseUrl,
    async call({ method, path, body, idempotencyKey, headers: more }: ApiRequest) {
      const headers: Record<string, string> = { ...more, accept: 'application/json' };
      if (authorization) headers.authorization = authorization;
      if (body !== undefined) headers['content-type'] = 'application/json';
      if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
      const answer = await app.inject({
        method: method as 'GET',
        url: `/${API_VERSION}${path}`,
        headers,
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      });
      const received = new Headers();
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined) received.set(name, Array.isArray(value) ? value.join(', ') : String(value));
      }
      return {
        status: answer.statusCode,
        body: answer.body === '' ? undefined : JSON.parse(answer.body),
        headers: received,
      };
    },
  };
}

function sessionOf(app: Http, baseUrl: string, authorization: string, adminKey: string | undefined): McpSession {
  const api = injectedClient(app, baseUrl, authorization);
  const anonymous = injectedClient(app, baseUrl, undefined);
  return {
    baseUrl,
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
      const session = sessionOf(
        app,
        baseUrl,
        request.headers.authorization ?? '',
        typeof given === 'string' ? given : undefined,
      );
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
