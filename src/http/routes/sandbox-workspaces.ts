import { sameSecret } from '../../domain/secrets.ts';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { created, type Http } from '../http.ts';
import type { Services } from '../../services/index.ts';
import { AppError } from '../../domain/errors.ts';
import { errors } from '../../wire/common.ts';
import {
  SandboxReset,
  SandboxSnapshot,
  SandboxSnapshotCreate,
  SandboxSnapshotList,
  SandboxWorkspace,
  SandboxWorkspaceCreate,
} from '../../wire/sandbox.ts';

const ADMIN_HEADER = 'x-sandbox-admin-key';

const DOCS = {
  workspace: {
    summary: 'Create a sandbox workspace: a platform of its own with fresh sandbox credentials',
    description:
      'One call, no process: the answer carries the new sandbox token and its secret (shown only here). ' +
      'Who may call it is the SANDBOX_WORKSPACES setting: open (no credentials; the default on a loopback ' +
      `address), admin (the ${ADMIN_HEADER} header must carry SANDBOX_ADMIN_KEY) or off.`,
  },
  reset: {
    summary: "Empty the calling workspace's sandbox",
    description:
      'Deletes its customers, accounts, transactions, ledger entries, quotes, events, jobs, documents, request ' +
      'log and fault rules, and sets its clock back to real time; its credentials, configuration and webhook ' +
      'keys stay.',
  },
  snapshot: {
    summary: "Save the calling workspace's whole sandbox state",
    description: 'Every row of this sandbox and its clock, kept in the database until restored (any number of times).',
  },
  list: {
    summary: "List the calling workspace's snapshots",
    description: 'Newest first; only the snapshots of the workspace the credentials belong to.',
  },
  restore: {
    summary: 'Bring the calling workspace back to one of its snapshots',
    description:
      'In one transaction: everything the sandbox holds now is replaced by the snapshot. Jobs running when it ' +
      'was taken run again; a document deleted since is not restored.',
  },
};

/** The SANDBOX_WORKSPACES rule, before anything is made. */
function mayCreateWorkspace(services: Services, request: FastifyRequest): void {
  const { mode, adminKey } = services.ctx.config.sandboxWorkspaces;
  if (mode === 'open') return;
  if (mode === 'off') throw new AppError('FORBIDDEN', 'Workspaces cannot be created here (SANDBOX_WORKSPACES=off)');
  const given = request.headers[ADMIN_HEADER];
  if (adminKey === undefined) {
    throw new AppError('FORBIDDEN', 'Workspaces need an admin key here, and the server has none (SANDBOX_ADMIN_KEY)');
  }
  if (typeof given !== 'string' || !sameSecret(given, adminKey)) {
    throw new AppError('FORBIDDEN', `Creating a workspace here needs the admin key in ${ADMIN_HEADER}`, {
      field: ADMIN_HEADER,
    });
  }
}

export function sandboxWorkspaceRoutes(api: Http, services: Services): void {
  const tags = ['Sandbox'];
  const { sandboxWorkspaces } = services;
  api.post('/sandbox/workspaces', {
    // Not tied to any existing credentials: the SANDBOX_WORKSPACES setting decides.
    config: { public: true },
    schema: {
      tags,
      ...DOCS.workspace,
      headers: Type.Object({ [ADMIN_HEADER]: Type.Optional(Type.String({ maxLength: 256 })) }),
      body: Type.Optional(SandboxWorkspaceCreate),
      response: { 201: SandboxWorkspace, ...errors(400, 403) },
    },
    handler: async (req, reply) => {
      mayCreateWorkspace(services, req);
      return created(reply, await sandboxWorkspaces.create(req.body?.name));
    },
  });
  api.post('/sandbox/reset', {
    config: { permission: 'MANAGE', sandboxOnly: true },
    schema: { tags, ...DOCS.reset, response: { 200: SandboxReset, ...errors(401, 403) } },
    handler: (req) => sandboxWorkspaces.reset(req.principal),
  });
  api.post('/sandbox/snapshots', {
    config: { permission: 'MANAGE', sandboxOnly: true, idempotent: true },
    schema: {
      tags,
      ...DOCS.snapshot,
      body: Type.Optional(SandboxSnapshotCreate),
      response: { 201: SandboxSnapshot, ...errors(400, 401, 403) },
    },
    handler: async (req, reply) => created(reply, await sandboxWorkspaces.save(req.principal, req.body?.name)),
  });
  api.get('/sandbox/snapshots', {
    config: { permission: 'VIEW', sandboxOnly: true },
    schema: { tags, ...DOCS.list, response: { 200: SandboxSnapshotList, ...errors(401, 403) } },
    handler: async (req) => ({ data: await sandboxWorkspaces.list(req.principal) }),
  });
  api.post('/sandbox/snapshots/:snapshotId/restore', {
    config: { permission: 'MANAGE', sandboxOnly: true },
    schema: {
      tags,
      ...DOCS.restore,
      params: Type.Object({ snapshotId: Type.String({ minLength: 1, maxLength: 200 }) }),
      response: { 200: SandboxSnapshot, ...errors(401, 403, 404) },
    },
    handler: async (req) => sandboxWorkspaces.restore(req.principal, req.params.snapshotId),
  });
}
