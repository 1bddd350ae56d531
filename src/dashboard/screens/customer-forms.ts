// The sandbox's create forms on the Customers screens, as Stripe's test mode has them: a customer, and a
// US bank account for one. Each goes through the same service use case as its API call (POST /customers,
// POST /customers/external-accounts), with the API's permission (MANAGE) and the form's CSRF token.
import type { FastifyInstance } from 'fastify';
import { choice, fieldsOf, requiredText, text } from '../form.ts';
import { done, need, type Screens } from '../render.ts';
import { sandboxOnly } from './sandbox-tabs.ts';

const hide = { schema: { hide: true } };
const CUSTOMER_TYPES = ['INDIVIDUAL', 'BUSINESS'] as const;

type ExternalAccountInput = Parameters<Screens['services']['externalAccounts']['create']>[1];

export function customerFormScreens(app: FastifyInstance, { services }: Screens): void {
  const { customers, externalAccounts } = services;

  app.post('/customers/new', hide, async (req, reply) => {
    need(req, 'MANAGE');
    sandboxOnly(req);
    const form = fieldsOf(req.body);
    const customerType = choice(form, 'customerType', CUSTOMER_TYPES) ?? 'INDIVIDUAL';
    const name = text(form, 'name', false, 200);
    const customer = await customers.create(req.principal, {
      customerType,
      platformCustomerId: requiredText(form, 'platformCustomerId', 200),
      ...(name === undefined
        ? {}
        : customerType === 'BUSINESS'
          ? { businessInfo: { legalName: name } }
          : { fullName: name }),
    });
    return done(
      req,
      reply,
      `/dashboard/customers/${encodeURIComponent(customer.id)}`,
      `Created customer ${customer.id}.`,
    );
  });

  app.post('/customers/:id/external-accounts', hide, async (req, reply) => {
    need(req, 'MANAGE');
    sandboxOnly(req);
    const customer = await customers.get(req.principal, requiredText(fieldsOf(req.params), 'id', 200));
    const form = fieldsOf(req.body);
    const holder = requiredText(form, 'beneficiary', 200);
    const bankName = text(form, 'bankName', false, 200);
    const input: ExternalAccountInput = {
      customerId: customer.id,
      currency: 'USD',
      accountInfo: {
        accountType: 'USD_ACCOUNT',
        accountNumber: requiredText(form, 'accountNumber', 40),
        routingNumber: requiredText(form, 'routingNumber', 40),
        ...(bankName === undefined ? {} : { bankName }),
        beneficiary:
          customer.customerType === 'BUSINESS'
            ? { beneficiaryType: 'BUSINESS', legalName: holder }
            : { beneficiaryType: 'INDIVIDUAL', fullName: holder },
      },
    };
    const account = await externalAccounts.create(req.principal, input);
    return done(req, reply, `/dashboard/customers/${encodeURIComponent(customer.id)}`, `Added ${account.id}.`);
  });
}
