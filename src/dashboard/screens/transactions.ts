// Transactions: a filtered, keyset-paged list, and one payment with its timeline, ledger postings, quote,
// webhook events with every delivery attempt, and the raw JSON.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import type { TransactionStatus } from '../../domain/transactions.ts';
import type { Principal } from '../../services/tokens.ts';
import { backTo, choice, day, type Fields, fieldsOf, text } from '../form.ts';
import { done, need, type Screens } from '../render.ts';
import { operatorEnabled, requireOperator } from '../operator.ts';
import { railHistoryOf } from '../../services/connectors/views.ts';
import { timelineOf } from '../timeline.ts';

export const STATUSES: readonly TransactionStatus[] = [
  'PENDING',
  'PROCESSING',
  'COMPLETED',
  'FAILED',
  'REJECTED',
  'EXPIRED',
];
const TYPES = ['OUTGOING', 'INCOMING'] as const;
const PAGE_SIZE = 25;
const DAY_MS = 86_400_000;

const hide = { schema: { hide: true } };

/** The id in a path, as text of a sane length (an id this long is in no table). */
function idParam(params: unknown, name: string): string {
  return text(fieldsOf(params), name, true, 200) as string;
}

/**
 * One payment with its events (each with its attempts), its ledger postings, its quote, what its connector
 * did (in the timeline), and whether webhooks have an endpoint now (what a delivery button needs to be worth
 * offering).
 */
async function detailOf({ services }: Screens, scope: Principal, id: string) {
  const { transactions, webhooks, quotes, platformConfig } = services;
  const tx = await transactions.get(scope, id);
  const listed = await webhooks.list(scope, { objectId: tx.id }, { limit: 100, order: 'asc' });
  const [events, postings, quote, config, rail] = await Promise.all([
    Promise.all(listed.data.map((e) => webhooks.get(scope, e.id))),
    services.overview.postingsOf(scope, tx.id),
    tx.quoteId ? quotes.get(scope, tx.quoteId).catch(() => undefined) : undefined,
    platformConfig.get(scope),
    railHistoryOf(services.ctx, scope, tx.id),
  ]);
  const timeline = timelineOf(tx, events, rail);
  return { tx, events, postings, quote, timeline, rail, hasEndpoint: config.webhookEndpoint !== undefined };
}

/** The list's filters as the form shows them, and the dates as the service takes them. */
function filtersOf(q: Fields) {
  const from = day(q, 'from');
  const to = day(q, 'to');
  const filters = {
    status: choice(q, 'status', STATUSES),
    type: choice(q, 'type', TYPES),
    customerId: text(q, 'customerId', false, 200),
    accountIdentifier: text(q, 'accountIdentifier', false, 200),
    from: from?.value,
    to: to?.value,
  };
  // The end date counts in full: up to its last millisecond.
  const dates = { startDate: from?.startMs, endDate: to && to.startMs + DAY_MS - 1 };
  return { filters, dates };
}

export function transactionScreens(app: FastifyInstance, screens: Screens): void {
  const { services, page } = screens;
  const { transactions } = services;

  app.get('/transactions', hide, async (req, reply) => {
    need(req, 'VIEW');
    const q = fieldsOf(req.query);
    const { filters, dates } = filtersOf(q);
    const cursor = text(q, 'cursor', false, 500);
    const result = await transactions.list(
      req.principal,
      { ...filters, ...dates },
      { limit: PAGE_SIZE, cursor, order: 'desc' },
    );
    const query = new URLSearchParams(Object.entries(filters).filter((e): e is [string, string] => e[1] !== undefined));
    return page(req, reply, 'transactions', {
      title: 'Transactions',
      nav: 'transactions',
      filters,
      statuses: STATUSES,
      types: TYPES,
      result,
      nextUrl: result.nextCursor
        ? `/dashboard/transactions?${query.toString()}${query.size ? '&' : ''}cursor=${result.nextCursor}`
        : undefined,
      firstUrl: cursor ? `/dashboard/transactions?${query.toString()}` : undefined,
    });
  });

  app.get('/transactions/:id', hide, async (req, reply) => {
    need(req, 'VIEW');
    const scope = req.principal;
    const detail = await detailOf(screens, scope, idParam(req.params, 'id'));
    const { tx, events, postings, quote, timeline, rail, hasEndpoint } = detail;
    return page(req, reply, 'transaction', {
      title: `Transaction ${tx.id}`,
      nav: 'transactions',
      tx,
      events,
      postings,
      quote,
      timeline,
      connector: rail.connector,
      hasEndpoint,
      // What the service accepts: not yet with its rail (PENDING), or held by the production connector.
      operator: operatorEnabled(services) && tx.status === 'PROCESSING' && scope.environment === 'production',
      cancellable:
        tx.type === 'OUTGOING' &&
        (tx.status === 'PENDING' || (tx.status === 'PROCESSING' && scope.environment === 'production')),
    });
  });
  transactionActions(app, screens);
}

/** What the detail pages' buttons do: cancel, the operator's settle or fail, redeliver an event. */
function transactionActions(app: FastifyInstance, { services }: Screens): void {
  const { transactions, webhooks } = services;

  app.post('/transactions/:id/cancel', hide, async (req, reply) => {
    need(req, 'TRANSACT');
    const id = idParam(req.params, 'id');
    await transactions.cancel(req.principal, id);
    return done(
      req,
      reply,
      `/dashboard/transactions/${encodeURIComponent(id)}`,
      'Cancelled: the payment failed and was refunded.',
    );
  });

  // The production connector's held payments are settled or failed by the operator, whose credential
  // (OPERATOR_TOKEN) the form asks for: a platform's token alone never moves them.
  app.post('/transactions/:id/operator', hide, async (req, reply) => {
    const form = fieldsOf(req.body);
    requireOperator(services, form);
    if (req.principal.environment !== 'production')
      throw new AppError('FORBIDDEN', "The sandbox's rail decides its payments; the operator settles production ones");
    const action = choice(form, 'action', ['settle', 'fail'] as const, true);
    const id = idParam(req.params, 'id');
    await transactions.get(req.principal, id);
    const moved = await transactions.resolveManually(id, action === 'settle' ? 'COMPLETE' : 'FAIL');
    return done(
      req,
      reply,
      `/dashboard/transactions/${encodeURIComponent(id)}`,
      `The operator moved it: ${moved.status}.`,
    );
  });

  app.post('/webhook-events/:id/redeliver', hide, async (req, reply) => {
    need(req, 'MANAGE');
    const id = idParam(req.params, 'id');
    await webhooks.redeliver(req.principal, id);
    const back = backTo(fieldsOf(req.body), `/dashboard/webhooks/events/${encodeURIComponent(id)}`);
    return done(req, reply, back, `Redelivery of ${id} queued.`);
  });
}
