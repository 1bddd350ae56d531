// Quotes: a paged list and one quote with its rate, fees, expiry and the transaction it became.
import type { FastifyInstance } from 'fastify';
import { fieldsOf, text } from '../form.ts';
import { need, type Screens } from '../render.ts';

const hide = { schema: { hide: true } };

export function quoteScreens(app: FastifyInstance, { services, page }: Screens): void {
  const { quotes } = services;

  app.get('/quotes', hide, async (req, reply) => {
    need(req, 'VIEW');
    const cursor = text(fieldsOf(req.query), 'cursor', false, 500);
    const list = await quotes.list(req.principal, {}, { limit: 25, cursor, order: 'desc' });
    return page(req, reply, 'quotes', {
      title: 'Quotes',
      nav: 'quotes',
      quotes: list,
      nextUrl: list.nextCursor ? `/dashboard/quotes?cursor=${list.nextCursor}` : undefined,
    });
  });

  app.get('/quotes/:id', hide, async (req, reply) => {
    need(req, 'VIEW');
    const quote = await quotes.get(req.principal, text(fieldsOf(req.params), 'id', true, 200) as string);
    return page(req, reply, 'quote', { title: `Quote ${quote.id}`, nav: 'quotes', quote });
  });
}
