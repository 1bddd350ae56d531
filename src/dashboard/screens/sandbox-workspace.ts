// The Sandbox screen's "Reset and snapshots" tab: empty the workspace (behind a typed confirmation), save
// its whole state under a name, and bring one of its own snapshots back (behind a confirmation page). The
// same use cases as POST /sandbox/reset and /sandbox/snapshots, and the same permissions: MANAGE acts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { notFound } from '../../domain/errors.ts';
import { RESET_DELETES, RESET_KEEPS } from '../../services/sandbox-workspaces.ts';
import { fieldsOf, requiredText, text } from '../form.ts';
import { done, need, type Screens } from '../render.ts';
import { sandboxOnly, sandboxPage } from './sandbox-tabs.ts';

const hide = { schema: { hide: true } };
const HERE = '/dashboard/sandbox/workspace';
/** Typed into the reset form: a click alone, or a form replayed by mistake, never empties a workspace. */
const RESET_WORD = 'reset';

const label = (s: { id: string; name: string | null }) => (s.name ? `“${s.name}”` : s.id);

function snapshotId(req: FastifyRequest): string {
  return requiredText(fieldsOf(req.params), 'id', 200);
}

export function sandboxWorkspaceScreens(app: FastifyInstance, { services, page }: Screens): void {
  const { sandboxWorkspaces } = services;
  const show = sandboxPage(page);

  app.get('/sandbox/workspace', hide, async (req, reply) => {
    need(req, 'VIEW');
    sandboxOnly(req);
    const snapshots = await sandboxWorkspaces.list(req.principal);
    return show(req, reply, 'workspace', 'sandbox-workspace', {
      snapshots,
      deletes: RESET_DELETES,
      keeps: RESET_KEEPS,
      resetWord: RESET_WORD,
    });
  });

  app.post('/sandbox/reset', hide, async (req, reply) => {
    need(req, 'MANAGE');
    sandboxOnly(req);
    const typed = text(fieldsOf(req.body), 'confirm', false, 100);
    if (typed?.toLowerCase() !== RESET_WORD)
      return done(req, reply, HERE, `Nothing was deleted: type ${RESET_WORD} in the box to confirm the reset.`, 'bad');
    const { deletedRows, resetAt } = await sandboxWorkspaces.reset(req.principal);
    return done(
      req,
      reply,
      HERE,
      `The workspace is empty: ${deletedRows} rows deleted, and its clock is back at real time (${resetAt}). ` +
        'Tokens, configuration and snapshots are kept.',
    );
  });

  app.post('/sandbox/snapshots', hide, async (req, reply) => {
    need(req, 'MANAGE');
    sandboxOnly(req);
    const name = requiredText(fieldsOf(req.body), 'name', 200);
    const saved = await sandboxWorkspaces.save(req.principal, name);
    return done(req, reply, HERE, `Saved snapshot ${label(saved)} (${saved.rows} rows) as ${saved.id}.`);
  });

  // The confirmation step of a restore: a page of its own, so it works the same without JavaScript.
  app.get('/sandbox/snapshots/:id', hide, async (req, reply) => {
    need(req, 'VIEW');
    sandboxOnly(req);
    const id = snapshotId(req);
    const snapshot = (await sandboxWorkspaces.list(req.principal)).find((s) => s.id === id);
    if (!snapshot) throw notFound('Snapshot', id);
    return show(req, reply, 'workspace', 'sandbox-snapshot', { snapshot });
  });

  app.post('/sandbox/snapshots/:id/restore', hide, async (req, reply) => {
    need(req, 'MANAGE');
    sandboxOnly(req);
    const restored = await sandboxWorkspaces.restore(req.principal, snapshotId(req));
    return done(
      req,
      reply,
      HERE,
      `Restored snapshot ${label(restored)}: its ${restored.rows} rows are back, and the clock is as it was then.`,
    );
  });
}
