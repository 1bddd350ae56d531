import type { Http } from '../http.ts';
import type { Services } from '../../services/index.ts';
import { Verification, VerificationCreate, VerificationListQuery } from '../../wire/verifications.ts';
import { errors, IdParam, Paginated } from '../../wire/common.ts';
import { pageOf } from './paging.ts';

const DOCS = {
  submit: {
    summary: 'Submit (or re-submit) a customer for KYC/KYB verification',
    description:
      'Checks the customer (and, for a business, its beneficial owners and documents) and answers what is ' +
      'missing or invalid in errors; with nothing missing it moves on to review.',
  },
  list: {
    summary: 'List verifications (newest first)',
    description: 'Filter by customerId or verificationStatus; pages with limit and cursor.',
  },
  get: { summary: 'Get a verification', description: 'One verification with its status and open errors.' },
};

export function verificationRoutes(api: Http, { verifications }: Services): void {
  const tags = ['Verifications'];
  api.post('/verifications', {
    config: { permission: 'MANAGE' },
    schema: {
      tags,
      ...DOCS.submit,
      body: VerificationCreate,
      response: { 200: Verification, ...errors(400, 401, 403, 404, 410) },
    },
    handler: async (req) => verifications.submit(req.principal, req.body.customerId),
  });
  api.get('/verifications', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      ...DOCS.list,
      querystring: VerificationListQuery,
      response: { 200: Paginated(Verification), ...errors(400, 401, 403) },
    },
    handler: async (req) =>
      verifications.list(
        req.principal,
        { customerId: req.query.customerId, verificationStatus: req.query.verificationStatus },
        pageOf(req.query, 'desc'),
      ),
  });
  api.get('/verifications/:verificationId', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      ...DOCS.get,
      params: IdParam('verificationId', 'Verification'),
      response: { 200: Verification, ...errors(401, 403, 404) },
    },
    handler: async (req) => verifications.get(req.principal, req.params.verificationId),
  });
}
