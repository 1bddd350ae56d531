// What every MCP tool calls through: the sandbox's own HTTP API, with one workspace's sandbox credentials.
// A tool is a few API calls, never a second implementation of one: the API validates, the API refuses,
// and its error body is what the agent reads (as an MCP tool error). Over stdio the session holds the
// credentials and may move to a workspace it made; over HTTP (`/mcp` on the server) it is the caller's.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  makeApiClient,
  ServerUnreachable,
  type ApiAnswer,
  type ApiClient,
  type ApiRequest,
} from '../cli/api-client.ts';

/** What a call that got no answer says: the server is gone, or a fault rule dropped the connection. */
export const NO_ANSWER_HINT = 'the server stopped, or a fault rule dropped the connection (list_faults)';

export interface SandboxCredentials {
  tokenId: string;
  clientSecret: string;
}

export interface McpSession {
  /** The API's base URL, http://HOST:PORT/2025-10-13. */
  readonly baseUrl: string;
  /** Where the session's sandbox came from, for sandbox_info: started by `payouts mcp`, or reached at a URL. */
  readonly origin: 'embedded' | 'url' | 'server';
  /** The current workspace's client. */
  api(): ApiClient;
  /** A client without credentials: workspace creation (public, by the SANDBOX_WORKSPACES setting). */
  anonymous(): ApiClient;
  /** Sent as x-sandbox-admin-key when a workspace is created (SANDBOX_ADMIN_KEY), if known. */
  readonly adminKey?: string | undefined;
  /** The current credentials, when this session may hand them out (stdio: the agent's own sandbox). */
  credentials(): SandboxCredentials | undefined;
  /** stdio only: later tools act in this workspace. Over HTTP the caller's credentials decide. */
  switchTo?(credentials: SandboxCredentials): void;
  /**
   * Refuses anything but sandbox credentials, with the API's own 403, before a tool sends anything
   * else: a production token could otherwise create customers and move money through these tools.
   */
  ensureSandbox(): Promise<void>;
}

/** A refusal of the API (or of the tool, before anything was sent), as the tool's error result. */
export class ToolRefusal extends Error {
  constructor(
    readonly status: number | undefined,
    readonly body: unknown,
  ) {
    super(JSON.stringify(status === undefined ? body : { status, ...(body as object) }));
  }
}

/** The body of a 2xx answer; a ToolRefusal carrying the API's error body otherwise. */
export async function call(api: ApiClient, request: ApiRequest): Promise<unknown> {
  const answer: ApiAnswer = await api.call(request);
  if (answer.status >= 200 && answer.status < 300) return answer.body;
  throw new ToolRefusal(answer.status, answer.body ?? { code: 'EMPTY_ANSWER', message: 'the API answered no body' });
}

/** Percent-encodes one path segment (ids hold `:`, which the API takes raw or encoded). */
export const segment = (id: string): string => encodeURIComponent(id);

/** The query string of the defined values: `?a=1&b=x`, or ''. */
export function query(values: Record<string, string | number | undefined>): string {
  const defined = Object.entries(values).filter((e): e is [string, string | number] => e[1] !== undefined);
  return defined.length === 0 ? '' : `?${new URLSearchParams(defined.map(([k, v]) => [k, String(v)])).toString()}`;
}

function resultOf(value: unknown): CallToolResult {
  const text = JSON.stringify(value, null, 2);
  const structured =
    value && typeof value === 'object' && !Array.isArray(value)
      ? { structuredContent: value as Record<string, unknown> }
      : {};
  return { content: [{ type: 'text', text }], ...structured };
}

function errorOf(err: unknown): CallToolResult {
  const text =
    err instanceof ToolRefusal
      ? err.message
      : JSON.stringify({
          code: err instanceof ServerUnreachable ? 'NO_ANSWER' : 'TOOL_FAILED',
          message: err instanceof Error ? err.message : String(err),
        });
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * Registers a tool whose input is a zod object: the SDK refuses input that does not match (naming the
 * field) before `run` is called; `run`'s answer is the tool's JSON result, a ToolRefusal its error.
 */
export function defineTool<Shape extends z.ZodRawShape>(
  server: McpServer,
  session: McpSession,
  name: string,
  description: string,
  shape: Shape,
  run: (args: z.infer<z.ZodObject<Shape>>) => Promise<unknown>,
): void {
  const handler = async (args: z.infer<z.ZodObject<Shape>>): Promise<CallToolResult> => {
    try {
      await session.ensureSandbox();
      return resultOf(await run(args));
    } catch (err) {
      return errorOf(err);
    }
  };
  // The SDK's generic parameters cannot follow a shape through a generic helper: the call is typed here.
  const register = server.registerTool.bind(server) as unknown as (
    name: string,
    config: { description: string; inputSchema: Shape },
    cb: typeof handler,
  ) => void;
  register(name, { description, inputSchema: shape }, handler);
}

/** The once-per-session check of ensureSandbox: the first call reads the sandbox clock, a sandbox-only route. */
export function sandboxCheck(api: () => ApiClient): () => Promise<void> {
  let checked: Promise<void> | undefined;
  return () => {
    checked ??= call(api(), { method: 'GET', path: '/sandbox/clock' }).then(() => undefined);
    // A failure is not remembered for good: a server that was not up yet may be up at the next call.
    return checked.catch((err: unknown) => {
      if (!(err instanceof ToolRefusal) || err.status !== 403) checked = undefined;
      throw err;
    });
  };
}

/**
 * A session over HTTP with fixed credentials to start with (stdio: the embedded sandbox's or the ones
 * given), which create_workspace may move to a new workspace.
 */
export function httpSession(
  baseUrl: string,
  initial: SandboxCredentials,
  origin: 'embedded' | 'url',
  adminKey?: string,
): McpSession {
  let credentials = initial;
  let client = makeApiClient(baseUrl, credentials, NO_ANSWER_HINT);
  const anonymous = makeApiClient(baseUrl, undefined, NO_ANSWER_HINT);
  let check = sandboxCheck(() => client);
  return {
    baseUrl,
    origin,
    adminKey,
    api: () => client,
    anonymous: () => anonymous,
    credentials: () => credentials,
    switchTo(next) {
      credentials = next;
      client = makeApiClient(baseUrl, next, NO_ANSWER_HINT);
      check = sandboxCheck(() => client);
    },
    ensureSandbox: () => check(),
  };
}
