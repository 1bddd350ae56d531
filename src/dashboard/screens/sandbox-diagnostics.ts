// The Sandbox screen's Request log and Faults tabs: the workspace's recent API requests (the log behind
// GET /sandbox/requests), filtered and keyset-paged like the transactions list, and its fault rules (the
// service behind /sandbox/faults), added and removed with the same permissions as the API: VIEW reads,
// TRANSACT changes the rules.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import { FAULT_METHODS, FAULT_STATUSES } from '../../domain/sandbox-faults.ts';
import type { FaultRuleInput } from '../../services/sandbox-faults.ts';
import type { RequestLogFilters } from '../../services/sandbox-requests.ts';
import { choice, type Fields, fieldsOf, integer, requiredText, text } from '../form.ts';
import { done, need, type Screens } from '../render.ts';
import { sandboxOnly, sandboxPage } from './sandbox-tabs.ts';

const hide = { schema: { hide: true } };
const PAGE_SIZE = 50;
const LOG = '/dashboard/sandbox/requests';
const FAULTS = '/dashboard/sandbox/faults';
const STATUS_CLASSES = ['2xx', '4xx', '5xx'] as const;
/** The answers the add form offers besides an error status: none (a delay only) or a dropped connection. */
const DROP = 'drop';
const ANSWERS = ['', DROP, ...FAULT_STATUSES.map(String)];

/** The log's filters as the form shows them, and as the service takes them. */
function logFiltersOf(q: Fields) {
  const filters = {
    status: choice(q, 'status', STATUS_CLASSES),
    method: choice(q, 'method', FAULT_METHODS),
    path: text(q, 'path', false, 500),
  };
  const service: RequestLogFilters = {
    status: filters.status && { hundreds: Number(filters.status[0]) },
    method: filters.method,
    pathPrefix: filters.path,
  };
  return { filters, service };
}

/** An optional whole number: blank is undefined, anything else must be in [min, max]. */
function optionalInteger(form: Fields, field: string, min: number, max: number): number | undefined {
  return text(form, field, false, 20) === undefined ? undefined : integer(form, field, min, max);
}

/** A probability from 0 to 1 (blank: always), written as a decimal such as 0.25. */
function probability(form: Fields): number | undefined {
  const value = text(form, 'probability', false, 20);
  if (value === undefined) return undefined;
  const n = /^\d*(\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= 0 && n <= 1))
    throw new AppError('INVALID_INPUT', 'probability must be a number from 0 to 1, such as 0.25', {
      field: 'probability',
    });
  return n;
}

/** The add form as the service's input; the service itself checks the route and what the rule does. */
function ruleInputOf(form: Fields): FaultRuleInput {
  const answer = choice(form, 'answer', ANSWERS);
  return {
    route: requiredText(form, 'route', 500),
    method: choice(form, 'method', FAULT_METHODS),
    probability: probability(form),
    latencyMs: optionalInteger(form, 'latencyMs', 0, 30_000),
    answer: answer && answer !== DROP ? { status: Number(answer) } : undefined,
    drop: answer === DROP ? true : undefined,
    times: optionalInteger(form, 'times', 1, 1_000_000),
  };
}

function requestLogScreen(app: FastifyInstance, { services, page }: Screens): void {
  const show = sandboxPage(page);
  app.get('/sandbox/requests', hide, async (req, reply) => {
    need(req, 'VIEW');
    sandboxOnly(req);
    const q = fieldsOf(req.query);
    const { filters, service } = logFiltersOf(q);
    const cursor = text(q, 'cursor', false, 500);
    // The service writes what this process holds first, as GET /sandbox/requests does.
    const result = await services.sandboxRequests.list(req.principal, service, {
      limit: PAGE_SIZE,
      cursor,
      order: 'desc',
    });
    const query = new URLSearchParams(Object.entries(filters).filter((e): e is [string, string] => e[1] !== undefined));
    const here = `${LOG}?${query.toString()}`;
    return show(req, reply, 'requests', 'sandbox-requests', {
      filters,
      statusClasses: STATUS_CLASSES,
      methods: FAULT_METHODS,
      result,
      filtered: query.size > 0,
      nextUrl: result.nextCursor
        ? `${here}${query.size ? '&' : ''}cursor=${encodeURIComponent(result.nextCursor)}`
        : undefined,
      firstUrl: cursor ? here : undefined,
      // Entries carry real arrival times, not the sandbox clock's: the relative hint counts from real time.
      wallNowMs: services.clocks.wallNowMs(),
    });
  });
}

function faultScreens(app: FastifyInstance, { services, page }: Screens): void {
  const { sandboxFaults } = services;
  const show = sandboxPage(page);

  app.get('/sandbox/faults', hide, async (req, reply) => {
    need(req, 'VIEW');
    sandboxOnly(req);
    return show(req, reply, 'faults', 'sandbox-faults', {
      rules: await sandboxFaults.list(req.principal),
      methods: FAULT_METHODS,
      statuses: FAULT_STATUSES,
      wallNowMs: services.clocks.wallNowMs(),
    });
  });

  app.post('/sandbox/faults', hide, async (req, reply) => {
    need(req, 'TRANSACT');
    sandboxOnly(req);
    const rule = await sandboxFaults.create(req.principal, ruleInputOf(fieldsOf(req.body)));
    return done(req, reply, FAULTS, `Added fault rule ${rule.id} for ${rule.method ?? 'any method'} ${rule.route}.`);
  });

  app.post('/sandbox/faults/:id/remove', hide, async (req, reply) => {
    need(req, 'TRANSACT');
    sandboxOnly(req);
    const rule = await sandboxFaults.remove(req.principal, requiredText(fieldsOf(req.params), 'id', 200));
    return done(req, reply, FAULTS, `Removed fault rule ${rule.id} (${rule.route}).`);
  });

  app.post('/sandbox/faults/clear', hide, async (req, reply) => {
    need(req, 'TRANSACT');
    sandboxOnly(req);
    const removed = await sandboxFaults.clear(req.principal);
    return done(req, reply, FAULTS, `Removed ${removed} fault rule${removed === 1 ? '' : 's'}.`);
  });
}

export function sandboxDiagnosticScreens(app: FastifyInstance, screens: Screens): void {
  requestLogScreen(app, screens);
  faultScreens(app, screens);
}
