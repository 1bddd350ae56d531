// The tools over the sandbox itself: workspaces, the webhook endpoint, the clock, triggers, and
// snapshot/reset/restore. Each is the API route named in its description.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { TRIGGER_EVENTS } from '../domain/sandbox-triggers.ts';
import { parseDuration } from '../domain/durations.ts';
import { call, defineTool, segment, ToolRefusal, type McpSession, type SandboxCredentials } from './session.ts';

const ENVELOPES = ['LEGACY', 'CURRENT'] as const;

const webhookFields = {
  webhookUrl: z.string().url().optional().describe('Where its webhooks go (PATCH /config webhookEndpoint)'),
  webhookEnvelope: z
    .enum(ENVELOPES)
    .optional()
    .describe('LEGACY (type OUTGOING_PAYMENT, object under transaction) or CURRENT (OUTGOING_PAYMENT.COMPLETED, data)'),
};

async function configureWebhooks(
  session: McpSession,
  args: { webhookUrl?: string | undefined; webhookEnvelope?: (typeof ENVELOPES)[number] | undefined },
): Promise<unknown> {
  const body = {
    ...(args.webhookUrl === undefined ? {} : { webhookEndpoint: args.webhookUrl }),
    ...(args.webhookEnvelope === undefined ? {} : { webhookEnvelope: args.webhookEnvelope }),
  };
  if (Object.keys(body).length === 0) return undefined;
  return call(session.api(), { method: 'PATCH', path: '/config', body });
}

function workspaceTools(server: McpServer, session: McpSession): void {
  defineTool(
    server,
    session,
    'create_workspace',
    'Create an isolated sandbox workspace (POST /sandbox/workspaces): a platform of its own with new sandbox ' +
      'credentials. Over stdio the following tools then act in it (switch: false keeps the current one).',
    { name: z.string().min(1).max(200).optional(), switch: z.boolean().default(true), ...webhookFields },
    async (args) => {
      const switching = args.switch && session.switchTo !== undefined;
      if (!switching && (args.webhookUrl !== undefined || args.webhookEnvelope !== undefined)) {
        throw new ToolRefusal(undefined, {
          code: 'INVALID_INPUT',
          message:
            'webhookUrl and webhookEnvelope need switch: true over stdio; over HTTP, connect with the new ' +
            'credentials and call set_webhooks',
          details: { field: 'webhookUrl' },
        });
      }
      const headers = session.adminKey ? { 'x-sandbox-admin-key': session.adminKey } : undefined;
      const request = { method: 'POST', path: '/sandbox/workspaces', body: { name: args.name ?? 'mcp' } };
      const made = (await call(session.anonymous(), {
        ...request,
        ...(headers ? { headers } : {}),
      })) as SandboxCredentials & { platformId: string };
      if (switching) session.switchTo?.({ tokenId: made.tokenId, clientSecret: made.clientSecret });
      const config = switching ? await configureWebhooks(session, args) : undefined;
      return {
        ...made,
        baseUrl: session.baseUrl,
        active: switching,
        note: switching
          ? 'The tools now act in this workspace.'
          : 'The tools still act in the workspace of this connection; connect with these credentials (HTTP Basic ' +
            'tokenId:clientSecret) to act in the new one.',
        ...(config ? { config } : {}),
      };
    },
  );
  defineTool(
    server,
    session,
    'sandbox_info',
    "The API's base URL, the workspace's token id (and, for a sandbox this server started or a workspace it " +
      'made, its secret), its sandbox clock and webhook configuration: what an app under test needs to call it.',
    {},
    async () => {
      const [clock, config] = await Promise.all([
        call(session.api(), { method: 'GET', path: '/sandbox/clock' }),
        call(session.api(), { method: 'GET', path: '/config' }),
      ]);
      const credentials = session.credentials();
      return { baseUrl: session.baseUrl, origin: session.origin, ...credentials, clock, config };
    },
  );
  defineTool(
    server,
    session,
    'set_webhooks',
    "Point the workspace's webhooks at a URL, or change their envelope (PATCH /config).",
    webhookFields,
    async (args) => (await configureWebhooks(session, args)) ?? call(session.api(), { method: 'GET', path: '/config' }),
  );
}

/** `seconds`, `milliseconds` or a duration (`30s`, `6m`, `2h`, `1d`): the milliseconds, or a refusal naming it. */
function millisecondsOf(args: {
  seconds?: number | undefined;
  milliseconds?: number | undefined;
  by?: string | undefined;
}) {
  const given = [args.seconds, args.milliseconds, args.by].filter((v) => v !== undefined).length;
  if (given !== 1) {
    throw new ToolRefusal(undefined, {
      code: 'INVALID_INPUT',
      message: 'give exactly one of seconds, milliseconds or by',
      details: { field: 'seconds' },
    });
  }
  if (args.by === undefined) return args.milliseconds ?? (args.seconds ?? 0) * 1000;
  const ms = parseDuration(args.by);
  if (ms === null || ms <= 0) {
    throw new ToolRefusal(undefined, {
      code: 'INVALID_INPUT',
      message: `by must be a duration such as 30s, 6m, 2h or 1d, not "${args.by}"`,
      details: { field: 'by' },
    });
  }
  return ms;
}

function clockTools(server: McpServer, session: McpSession): void {
  defineTool(
    server,
    session,
    'advance_clock',
    "Move the workspace's sandbox clock forward and run everything that became due: the 30-second and " +
      '6-minute outcomes, quote expiry, webhook retries (POST /sandbox/clock/advance).',
    {
      seconds: z.number().int().positive().optional(),
      milliseconds: z.number().int().positive().optional(),
      by: z.string().optional().describe('A duration: 30s, 6m, 2h, 1d'),
    },
    async (args) =>
      call(session.api(), {
        method: 'POST',
        path: '/sandbox/clock/advance',
        body: { milliseconds: millisecondsOf(args) },
      }),
  );
  defineTool(
    server,
    session,
    'trigger_event',
    'Make a webhook event happen (POST /sandbox/trigger): runs the real flow that records it (customer, ' +
      'accounts, payment…) and answers the event id and the objects it made.',
    { event: z.enum(TRIGGER_EVENTS) },
    async ({ event }) => call(session.api(), { method: 'POST', path: '/sandbox/trigger', body: { event } }),
  );
}

function stateTools(server: McpServer, session: McpSession): void {
  defineTool(
    server,
    session,
    'snapshot',
    "Save the workspace's whole sandbox state and its clock (POST /sandbox/snapshots).",
    { name: z.string().min(1).max(200).optional() },
    async ({ name }) =>
      call(session.api(), { method: 'POST', path: '/sandbox/snapshots', body: name === undefined ? {} : { name } }),
  );
  defineTool(
    server,
    session,
    'list_snapshots',
    "The workspace's snapshots, newest first (GET /sandbox/snapshots).",
    {},
    async () => call(session.api(), { method: 'GET', path: '/sandbox/snapshots' }),
  );
  defineTool(
    server,
    session,
    'restore_snapshot',
    "Replace the workspace's sandbox with a snapshot, in one transaction (POST /sandbox/snapshots/{id}/restore).",
    { snapshotId: z.string().min(1).max(200) },
    async ({ snapshotId }) =>
      call(session.api(), { method: 'POST', path: `/sandbox/snapshots/${segment(snapshotId)}/restore` }),
  );
  defineTool(
    server,
    session,
    'reset_sandbox',
    "Empty the workspace's sandbox: customers, accounts, payments, ledger, events, request log, fault rules; " +
      'the clock back at real time. Credentials and webhook configuration stay (POST /sandbox/reset).',
    {},
    async () => call(session.api(), { method: 'POST', path: '/sandbox/reset' }),
  );
}

export function sandboxTools(server: McpServer, session: McpSession): void {
  workspaceTools(server, session);
  clockTools(server, session);
  stateTools(server, session);
}
