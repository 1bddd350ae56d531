import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { API, basicAuth, useServer, type TestPlatform } from '../helpers/harness.ts';
import { casesFor, operationsOf, type FuzzCase } from './fuzz-cases.ts';
import { databaseDigest } from '../helpers/database-digest.ts';
import { rawRequest, rawWithBody, type RawAnswer } from './raw-http.ts';

/** Bounded and seeded: FUZZ_SEED and FUZZ_RUNS replay or widen a run. */
const SEED = Number(process.env.FUZZ_SEED ?? 20_260_801);
const RUNS = Number(process.env.FUZZ_RUNS ?? 2500);
const CONCURRENCY = 4;

function problemWith(c: FuzzCase, res: RawAnswer): string | undefined {
  if (res.status >= 500 || res.status === 0) return `answered ${res.status}: ${res.text.slice(0, 300)}`;
  if (res.status < 400) return `accepted (${res.status}) a request that must be refused: ${res.text.slice(0, 200)}`;
  const body = res.body;
  if (body === null || typeof body !== 'object')
    return `a ${res.status} whose body is not JSON: ${res.text.slice(0, 200)}`;
  const extra = Object.keys(body).filter((k) => !['status', 'code', 'message', 'details'].includes(k));
  if (body.status !== res.status || typeof body.code !== 'string' || typeof body.message !== 'string' || extra.length)
    return `a ${res.status} not in the error shape: ${res.text.slice(0, 300)}`;
  if (body.details !== undefined && (body.details === null || typeof body.details !== 'object'))
    return `details is not an object: ${res.text.slice(0, 200)}`;
  void c;
  return undefined;
}

describe('fuzz: malformed requests to every operation of the served document', () => {
  let p: TestPlatform;
  let port: number;
  let cases: FuzzCase[];
  // No workers: nothing but the requests may touch the database while it is compared.
  const server = useServer({ RUN_WORKERS: 'false' });
  before(async () => {
    p = await server.platform('fuzz');
    port = Number(new URL(server.baseUrl).port);
    const customer = await p.api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'fuzz-1' });
    assert.equal(customer.status, 201, 'a customer to aim at');
    const accounts = await p.api.get('/platform/internal-accounts?currency=USD');
    const doc = await p.api.get(`${API}/openapi.json`);
    assert.equal(doc.status, 200, 'the served document');
    const operations = operationsOf(doc.body);
    assert.ok(operations.length > 40, `the document lists the operations (${operations.length})`);
    const context = {
      authorization: basicAuth(p.sandbox),
      apiPrefix: API,
      ids: {
        customerId: customer.body.id,
        accountId: accounts.body.data[0].id,
        tokenId: p.sandbox.tokenId,
      },
    };
    // Round robin over the operations, so every one gets its share whatever RUNS is.
    const perOperation = Math.max(1, Math.ceil(RUNS / operations.length));
    cases = operations.flatMap((op, i) => fc.sample(casesFor(op, context), { seed: SEED + i, numRuns: perOperation }));
  });

  it(`answers ${RUNS} malformed requests with a 4xx in the error shape and changes nothing`, async () => {
    const digestBefore = await databaseDigest(server);
    const problems: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < cases.length) {
        const c = cases[next++]!;
        const res = await rawRequest(port, rawWithBody(c.method, c.target, c.headers, c.body ?? Buffer.alloc(0)));
        const problem = problemWith(c, res);
        if (problem) problems.push(`${c.what}\n    ${problem}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    assert.deepEqual(
      problems.slice(0, 15),
      [],
      `${problems.length} of ${cases.length} requests went wrong (seed ${SEED}); the first ones are listed`,
    );
    assert.deepEqual(await databaseDigest(server), digestBefore, 'no refused request changed the database');
  });
});
