import { created, type Http } from '../http.ts';
import type { Services } from '../../services/index.ts';
import { Customer, CustomerCreate, CustomerListQuery, CustomerUpdate } from '../../wire/customers.ts';
import { errors, IdParam, Paginated } from '../../wire/common.ts';
import { ms, pageOf } from './paging.ts';

const DOCS = {
  create: {
    summary: 'Create a customer and its internal accounts',
    description:
      'An INDIVIDUAL or BUSINESS customer, identified by your platformCustomerId (unique per environment). ' +
      'Opens one internal account per currency the platform supports and gives the customer a UMA address. ' +
      'Takes Idempotency-Key.',
  },
  list: {
    summary: 'List customers (newest first)',
    description: 'Filters combine; deleted customers are left out unless isIncludingDeleted=true.',
  },
  get: {
    summary: 'Get a customer',
    description: 'One customer with its profile, verification status and, for a business, its beneficial owners.',
  },
  update: {
    summary: 'Update a customer',
    description:
      'Replaces the profile fields given; customerType must match the customer. A deleted customer is a 410.',
  },
  remove: {
    summary: 'Delete a customer (kept for the record, hidden from lists)',
    description: 'Marks the customer deleted (isDeleted: true) and answers it; its history stays.',
  },
};

export function customerRoutes(api: Http, { customers }: Services): void {
  const tags = ['Customers'];
  const params = IdParam('customerId', 'Customer');
  api.post('/customers', {
    config: { permission: 'MANAGE', idempotent: true },
    schema: {
      tags,
      ...DOCS.create,
      body: CustomerCreate,
      response: { 201: Customer, ...errors(400, 401, 403, 409) },
    },
    handler: async (req, reply) => created(reply, await customers.create(req.principal, req.body)),
  });
  api.get('/customers', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      ...DOCS.list,
      querystring: CustomerListQuery,
      response: { 200: Paginated(Customer), ...errors(400, 401, 403) },
    },
    handler: async (req) => {
      const q = req.query;
      return customers.list(
        req.principal,
        {
          platformCustomerId: q.platformCustomerId,
          customerType: q.customerType,
          umaAddress: q.umaAddress,
          createdAfter: ms(q.createdAfter),
          createdBefore: ms(q.createdBefore),
          updatedAfter: ms(q.updatedAfter),
          updatedBefore: ms(q.updatedBefore),
          isIncludingDeleted: q.isIncludingDeleted,
        },
        pageOf(q, 'desc'),
      );
    },
  });
  api.get('/customers/:customerId', {
    config: { permission: 'VIEW' },
    schema: { tags, ...DOCS.get, params, response: { 200: Customer, ...errors(401, 403, 404) } },
    handler: async (req) => customers.get(req.principal, req.params.customerId),
  });
  api.patch('/customers/:customerId', {
    config: { permission: 'MANAGE' },
    schema: {
      tags,
      ...DOCS.update,
      params,
      body: CustomerUpdate,
      response: { 200: Customer, ...errors(400, 401, 403, 404, 409, 410) },
    },
    handler: async (req) => customers.update(req.principal, req.params.customerId, req.body),
  });
  api.delete('/customers/:customerId', {
    config: { permission: 'MANAGE' },
    schema: {
      tags,
      ...DOCS.remove,
      params,
      response: { 200: Customer, ...errors(401, 403, 404, 410) },
    },
    handler: async (req) => customers.remove(req.principal, req.params.customerId),
  });
}
