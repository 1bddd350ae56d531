import type { Http } from '../http.ts';
import type { Services } from '../../services/index.ts';
import { TestWebhookRequest, TestWebhookResponse, WebhookEvent, WebhookEventListQuery } from '../../wire/webhooks.ts';
import { errors, IdParam, Paginated } from '../../wire/common.ts';
import { pageOf } from './paging.ts';

const DOCS = {
  list: {
    summary: 'List events and their delivery state (newest first)',
    description: 'Every event recorded for this environment; filter by type, objectId or deliveryState.',
  },
  get: {
    summary: 'Get an event with every delivery attempt',
    description: 'The event, its payload and each attempt: when, where, the answer and how long it took.',
  },
  redeliver: {
    summary: 'Deliver an event again now, whatever its state (same id, a fresh retry window)',
    description: 'Queues a new delivery run and answers 202 with the event. No endpoint configured is a 409.',
  },
  test: {
    summary:
      'Send a TEST webhook now (signed like every delivery) and report the answer; a non-2xx answer is a 400 ' +
      'WEBHOOK_DELIVERY_ERROR',
    description:
      'Sends to url, or to the configured endpoint without one. The body is optional. Use it to check the ' +
      'endpoint verifies signatures.',
  },
};

export function webhookRoutes(api: Http, { webhooks }: Services): void {
  const tags = ['Webhooks'];
  const params = IdParam('eventId', 'Webhook');
  api.get('/webhook-events', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      ...DOCS.list,
      querystring: WebhookEventListQuery,
      response: { 200: Paginated(WebhookEvent), ...errors(400, 401, 403) },
    },
    handler: async (req) => {
      const q = req.query;
      return webhooks.list(
        req.principal,
        { type: q.type, objectId: q.objectId, deliveryState: q.deliveryState },
        pageOf(q, 'desc'),
      );
    },
  });
  api.get('/webhook-events/:eventId', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      ...DOCS.get,
      params,
      response: { 200: WebhookEvent, ...errors(401, 403, 404) },
    },
    handler: async (req) => webhooks.get(req.principal, req.params.eventId),
  });
  api.post('/webhook-events/:eventId/redeliver', {
    config: { permission: 'MANAGE' },
    schema: {
      tags,
      ...DOCS.redeliver,
      params,
      response: { 202: WebhookEvent, ...errors(401, 403, 404, 409) },
    },
    handler: async (req, reply) => reply.status(202).send(await webhooks.redeliver(req.principal, req.params.eventId)),
  });

  // The specification's path and the newer sandbox path; both take an optional {url}.
  const testPaths: Array<[string, boolean]> = [
    ['/webhooks/test', false],
    ['/sandbox/webhooks/test', true],
  ];
  for (const [path, sandboxOnly] of testPaths) {
    api.post(path, {
      config: { permission: 'MANAGE', sandboxOnly },
      // The public API's call has no body at all; our {url} is optional. Absent means {}.
      preValidation: async (req) => {
        req.body ??= {};
      },
      schema: {
        tags: sandboxOnly ? ['Sandbox'] : tags,
        ...DOCS.test,
        body: TestWebhookRequest,
        response: { 200: TestWebhookResponse, ...errors(400, 401, 403) },
      },
      handler: async (req) => webhooks.sendTest(req.principal, req.body.url),
    });
  }
}
