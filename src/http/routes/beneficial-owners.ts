import { created, type Http } from '../http.ts';
import type { Services } from '../../services/index.ts';
import {
  BeneficialOwner,
  BeneficialOwnerCreate,
  BeneficialOwnerListQuery,
  BeneficialOwnerUpdate,
} from '../../wire/beneficial-owners.ts';
import { errors, IdParam, Paginated } from '../../wire/common.ts';
import { pageOf } from './paging.ts';

const DOCS = {
  create: {
    summary: 'Add a beneficial owner to a business customer',
    description:
      'A person who owns or controls a BUSINESS customer, with roles, ownership percentage and identity ' +
      'details; part of the business verification. Takes Idempotency-Key.',
  },
  list: {
    summary: 'List beneficial owners (oldest first)',
    description: 'Filter by customerId or role; pages with limit and cursor.',
  },
  get: { summary: 'Get a beneficial owner', description: 'One beneficial owner with its KYC status.' },
  update: {
    summary: 'Update a beneficial owner',
    description: 'Changes the fields given; personalInfo fields are merged into the stored ones.',
  },
};

export function beneficialOwnerRoutes(api: Http, { beneficialOwners }: Services): void {
  const tags = ['Beneficial owners'];
  const params = IdParam('beneficialOwnerId', 'BeneficialOwner');
  api.post('/beneficial-owners', {
    config: { permission: 'MANAGE', idempotent: true },
    schema: {
      tags,
      ...DOCS.create,
      body: BeneficialOwnerCreate,
      response: { 201: BeneficialOwner, ...errors(400, 401, 403, 404, 410) },
    },
    handler: async (req, reply) => created(reply, await beneficialOwners.create(req.principal, req.body)),
  });
  api.get('/beneficial-owners', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      ...DOCS.list,
      querystring: BeneficialOwnerListQuery,
      response: { 200: Paginated(BeneficialOwner), ...errors(400, 401, 403) },
    },
    handler: async (req) =>
      beneficialOwners.list(
        req.principal,
        { customerId: req.query.customerId, role: req.query.role },
        pageOf(req.query, 'asc'),
      ),
  });
  api.get('/beneficial-owners/:beneficialOwnerId', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      ...DOCS.get,
      params,
      response: { 200: BeneficialOwner, ...errors(401, 403, 404) },
    },
    handler: async (req) => beneficialOwners.get(req.principal, req.params.beneficialOwnerId),
  });
  api.patch('/beneficial-owners/:beneficialOwnerId', {
    config: { permission: 'MANAGE' },
    schema: {
      tags,
      ...DOCS.update,
      params,
      body: BeneficialOwnerUpdate,
      response: { 200: BeneficialOwner, ...errors(400, 401, 403, 404, 410) },
    },
    handler: async (req) => beneficialOwners.update(req.principal, req.params.beneficialOwnerId, req.body),
  });
}
