// Webhooks: the endpoint and envelope (editable), both public keys, a test send, and the event list with
// each event's delivery attempts and a redeliver button.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import type { DeliveryState } from '../../store/schema.ts';
import { choice, fieldsOf, text } from '../form.ts';
import { done, need, type Screens } from '../render.ts';

const hide = { schema: { hide: true } };
const STATES: readonly DeliveryState[] = ['PENDING', 'DELIVERED', 'FAILED', 'NO_ENDPOINT', 'NOT_IN_ENVELOPE'];
const ENVELOPES = ['LEGACY', 'CURRENT'] as const;

export function webhookScreens(app: FastifyInstance, { services, page }: Screens): void {
  const { webhooks, platformConfig } = services;

  app.get('/webhooks', hide, async (req, reply) => {
    need(req, 'VIEW');
    const q = fieldsOf(req.query);
    const filters = {
      type: text(q, 'type', false, 100),
      objectId: text(q, 'objectId', false, 200),
      deliveryState: choice(q, 'deliveryState', STATES),
    };
    const cursor = text(q, 'cursor', false, 500);
    const [config, events] = await Promise.all([
      platformConfig.get(req.principal),
      webhooks.list(req.principal, filters, { limit: 25, cursor, order: 'desc' }),
    ]);
    const query = new URLSearchParams(Object.entries(filters).filter((e): e is [string, string] => e[1] !== undefined));
    if (events.nextCursor) query.set('cursor', events.nextCursor);
    return page(req, reply, 'webhooks', {
      title: 'Webhooks',
      nav: 'webhooks',
      config,
      events,
      filters,
      states: STATES,
      envelopes: ENVELOPES,
      nextUrl: events.nextCursor ? `/dashboard/webhooks?${query.toString()}` : undefined,
    });
  });

  app.get('/webhooks/events/:id', hide, async (req, reply) => {
    need(req, 'VIEW');
    const id = text(fieldsOf(req.params), 'id', true, 200) as string;
    const [event, config] = await Promise.all([webhooks.get(req.principal, id), platformConfig.get(req.principal)]);
    const hasEndpoint = config.webhookEndpoint !== undefined;
    return page(req, reply, 'event', { title: `Event ${event.id}`, nav: 'webhooks', event, hasEndpoint });
  });

  app.post('/webhooks/config', hide, async (req, reply) => {
    need(req, 'MANAGE');
    const form = fieldsOf(req.body);
    const endpoint = text(form, 'webhookEndpoint', false, 2000);
    await platformConfig.update(req.principal, {
      webhookEndpoint: endpoint ?? null,
      webhookEnvelope: choice(form, 'webhookEnvelope', ENVELOPES),
    });
    return done(req, reply, '/dashboard/webhooks', endpoint ? `Webhooks now go to ${endpoint}.` : 'Webhooks are off.');
  });

  app.post('/webhooks/test', hide, async (req, reply) => {
    need(req, 'MANAGE');
    try {
      const result = await webhooks.sendTest(req.principal, undefined);
      return done(
        req,
        reply,
        '/dashboard/webhooks',
        `Test sent to ${result.url}: it answered ${result.response_status}.`,
      );
    } catch (err) {
      // A failed test is the answer the person asked for, not an error page.
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      return done(req, reply, '/dashboard/webhooks', `Test not delivered: ${err.message}`, 'bad');
    }
  });
}
