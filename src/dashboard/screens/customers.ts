// Customers: a paged list and one customer with their internal and external accounts, documents (their
// own and their beneficial owners') and verifications; the operator activates an external account waiting
// for review.
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../domain/errors.ts';
import { fieldsOf, text } from '../form.ts';
import { operatorEnabled, requireOperator } from '../operator.ts';
import { done, need, type Screens } from '../render.ts';

const hide = { schema: { hide: true } };
/** What one customer page lists of each kind; past it, the page says so and points to the API. */
const PER_SECTION = 50;

export function customerScreens(app: FastifyInstance, { services, page }: Screens): void {
  const { customers, internalAccounts, externalAccounts, documents, verifications } = services;

  app.get('/customers', hide, async (req, reply) => {
    need(req, 'VIEW');
    const q = fieldsOf(req.query);
    const platformCustomerId = text(q, 'platformCustomerId', false, 200);
    const cursor = text(q, 'cursor', false, 500);
    const list = await customers.list(req.principal, { platformCustomerId }, { limit: 25, cursor, order: 'desc' });
    const next = new URLSearchParams(platformCustomerId ? { platformCustomerId } : {});
    if (list.nextCursor) next.set('cursor', list.nextCursor);
    return page(req, reply, 'customers', {
      title: 'Customers',
      nav: 'customers',
      customers: list,
      platformCustomerId,
      nextUrl: list.nextCursor ? `/dashboard/customers?${next.toString()}` : undefined,
    });
  });

  app.get('/customers/:id', hide, async (req, reply) => {
    need(req, 'VIEW');
    const scope = req.principal;
    const customer = await customers.get(scope, text(fieldsOf(req.params), 'id', true, 200) as string);
    const mine = { customerId: customer.id };
    const [internal, external, docs, checks] = await Promise.all([
      internalAccounts.listCustomerAccounts(scope, mine, { limit: 100, order: 'asc' }),
      externalAccounts.listCustomerAccounts(scope, mine, { limit: 100, order: 'asc' }),
      documents.list(scope, mine, { limit: PER_SECTION, order: 'asc' }),
      verifications.list(scope, mine, { limit: PER_SECTION, order: 'desc' }),
    ]);
    return page(req, reply, 'customer', {
      title: `Customer ${customer.id}`,
      nav: 'customers',
      customer,
      internal: internal.data,
      external: external.data,
      documents: docs.data,
      moreDocuments: docs.nextCursor !== undefined,
      verifications: checks.data,
      moreVerifications: checks.nextCursor !== undefined,
      operator: operatorEnabled(services),
    });
  });

  // The operator's review of a production account (what `payouts accounts activate` does).
  app.post('/customers/:id/accounts/:accountId/activate', hide, async (req, reply) => {
    const params = fieldsOf(req.params);
    const customerId = text(params, 'id', true, 200) as string;
    const accountId = text(params, 'accountId', true, 200) as string;
    requireOperator(services, fieldsOf(req.body));
    // Only an account of this customer, seen through the signed-in platform's own scope.
    const account = await externalAccounts.get(req.principal, accountId, 'any');
    if (account.customerId !== customerId) throw notFound('External account', accountId);
    const activated = await externalAccounts.activate(account.id);
    return done(
      req,
      reply,
      `/dashboard/customers/${encodeURIComponent(customerId)}`,
      `${activated.id} is ${activated.status}.`,
    );
  });
}
