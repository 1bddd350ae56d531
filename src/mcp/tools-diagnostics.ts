// The request log and fault rules: what the workspace's API calls were answered, and the errors, delays
// and dropped connections a test wants the next calls to meet.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { FAULT_METHODS } from '../domain/sandbox-faults.ts';
import { call, defineTool, query, segment, ToolRefusal, type McpSession } from './session.ts';

export function diagnosticTools(server: McpServer, session: McpSession): void {
  defineTool(
    server,
    session,
    'request_log',
    "The workspace's recent API requests, newest first (GET /sandbox/requests): method, path, status, latency, " +
      'request id, idempotency key, error code and fault applied (bodies when the server keeps them).',
    {
      method: z.enum(FAULT_METHODS).optional(),
      path: z.string().min(1).max(500).optional().describe('A path prefix: /customers'),
      status: z
        .string()
        .regex(/^([1-5][0-9]{2}|[1-5]xx)$/)
        .optional()
        .describe('404, or a class: 4xx'),
      errorCode: z.string().max(100).optional(),
      limit: z.number().int().min(1).max(100).default(20),
      cursor: z.string().max(512).optional(),
    },
    async (args) => call(session.api(), { method: 'GET', path: `/sandbox/requests${query(args)}` }),
  );
  defineTool(
    server,
    session,
    'add_fault',
    'Make matching API requests of this workspace fail (POST /sandbox/faults): delay them (latencyMs), answer ' +
      'an error (answer: {status, code?}) or drop the connection, with a probability, at most `times` times.',
    {
      route: z.string().min(1).max(500).describe('A path under the API base; * one segment, ** any: /customers/*'),
      method: z.enum(FAULT_METHODS).optional(),
      answer: z
        .object({ status: z.number().int(), code: z.string().max(100).optional() })
        .strict()
        .optional(),
      drop: z.boolean().optional(),
      latencyMs: z.number().int().min(0).max(30_000).optional(),
      probability: z.number().min(0).max(1).optional(),
      times: z.number().int().min(1).max(1_000_000).optional(),
    },
    async (args) => call(session.api(), { method: 'POST', path: '/sandbox/faults', body: args }),
  );
  defineTool(
    server,
    session,
    'list_faults',
    "The workspace's fault rules, in the order they are tried (GET /sandbox/faults).",
    {},
    async () => call(session.api(), { method: 'GET', path: '/sandbox/faults' }),
  );
  defineTool(
    server,
    session,
    'remove_fault',
    'Remove one fault rule (DELETE /sandbox/faults/{id}), or every one with all: true (DELETE /sandbox/faults).',
    { faultId: z.string().min(1).max(200).optional(), all: z.boolean().default(false) },
    async ({ faultId, all }) => {
      if (all && faultId === undefined) return call(session.api(), { method: 'DELETE', path: '/sandbox/faults' });
      if (all || faultId === undefined) {
        throw new ToolRefusal(undefined, {
          code: 'INVALID_INPUT',
          message: 'give either a faultId, or all: true to remove every rule',
          details: { field: 'faultId' },
        });
      }
      return call(session.api(), { method: 'DELETE', path: `/sandbox/faults/${segment(faultId)}` });
    },
  );
}
