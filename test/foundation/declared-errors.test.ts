import assert from 'node:assert/strict';
import type { FastifyRequest } from 'fastify';
import { undeclaredStatus } from '../../src/http/server.ts';
import { describe, it } from '../helpers/node-test.ts';

// The whole suite runs with this check on (the harness validates responses), so every error status a
// route answers anywhere in the suite is one its OpenAPI entry declares. Here, the check itself.
describe('declared error statuses', () => {
  const request = (response: Record<string, unknown> | undefined) =>
    ({
      method: 'POST',
      url: '/x',
      routeOptions: { url: '/x', schema: response ? { response } : {} },
    }) as unknown as FastifyRequest;
  const body = (status: number, code: string) => ({ status, code, message: 'm' });

  it('turns an undeclared status into a 500 that names the route, the status and the code', () => {
    const result = undeclaredStatus(request({ 201: {}, 400: {} }), body(409, 'CONFLICT'));
    assert.equal(result?.status, 500);
    assert.equal(result?.message, 'POST /x answered 409 CONFLICT, which its schema does not declare');
  });

  it('lets declared statuses, the server-wide ones and schema-less routes through', () => {
    assert.equal(undeclaredStatus(request({ 201: {}, 400: {} }), body(400, 'INVALID_INPUT')), undefined);
    assert.equal(undeclaredStatus(request({ 201: {} }), body(415, 'UNSUPPORTED_MEDIA_TYPE')), undefined);
    assert.equal(undeclaredStatus(request(undefined), body(404, 'REFERENCE_NOT_FOUND')), undefined);
  });
});
