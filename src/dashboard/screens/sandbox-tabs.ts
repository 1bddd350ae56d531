// The Sandbox screen is a row of tabs, each its own page under /dashboard/sandbox, so every section keeps
// plain links, its own forms and its own paging. A new section (a request log, fault rules) is one entry in
// SANDBOX_TABS, a template that includes `sandbox-tabs`, and routes that render it through `sandboxPage`.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import type { Page } from '../render.ts';

export const SANDBOX_TABS = [
  { id: 'overview', label: 'Clock and scenarios', href: '/dashboard/sandbox' },
  { id: 'triggers', label: 'Triggers', href: '/dashboard/sandbox/triggers' },
  { id: 'workspace', label: 'Reset and snapshots', href: '/dashboard/sandbox/workspace' },
  { id: 'requests', label: 'Request log', href: '/dashboard/sandbox/requests' },
  { id: 'faults', label: 'Faults', href: '/dashboard/sandbox/faults' },
] as const;

export type SandboxTab = (typeof SANDBOX_TABS)[number]['id'];

/** Every sandbox page and form refuses a production session (its navigation never links here either). */
export function sandboxOnly(req: FastifyRequest): void {
  if (req.principal.environment !== 'sandbox')
    throw new AppError('FORBIDDEN', 'The sandbox screen is for sandbox tokens; this one is for production');
}

/** Renders one tab of the Sandbox screen: its template, the tab row with this tab current, the page title. */
export function sandboxPage(page: Page) {
  return (
    req: FastifyRequest,
    reply: FastifyReply,
    tab: SandboxTab,
    template: string,
    data: Record<string, unknown> = {},
  ) => {
    const current = SANDBOX_TABS.find((t) => t.id === tab) ?? SANDBOX_TABS[0];
    return page(req, reply, template, {
      title: tab === 'overview' ? 'Sandbox' : `Sandbox · ${current.label}`,
      nav: 'sandbox',
      tabs: SANDBOX_TABS,
      tab,
      ...data,
    });
  };
}
