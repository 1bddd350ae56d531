/**
 * JSON request bodies are closed: a field the operation does not take is a 400 INVALID_INPUT naming it
 * (details.field, rule additionalProperties), at the top level and in nested objects, and nothing is
 * written. The operations are every POST, PUT and PATCH with a JSON body in the served OpenAPI document;
 * each is sent its own documented example plus one unknown field, so the unknown field is the only fault.
 */
import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { databaseDigest } from '../helpers/database-digest.ts';
import { API, useServer, type TestPlatform } from '../helpers/harness.ts';
import { operationsOf } from './operations.ts';
import { checkDueLedgers } from '../../src/ledger/checks.ts';

type Node = Record<string, any>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);
const UNKNOWN = 'notAFieldOfThisRequest';

/**
 * Objects whose fields are not fixed by the request schema: account details are checked field by field by
 * the account-type rules (which refuse unknown fields themselves), and the counterparty info objects are
 * keyed by the field names a receiver asks for.
 */
const OPEN = new Set(['accountInfo', 'externalAccountDetails', 'senderCustomerInfo', 'receiverCustomerInfo']);

describe('closed request bodies', () => {
  let p: TestPlatform;
  let doc: Node;
  const server = useServer();
  before(async () => {
    p = await server.platform();
    doc = (await (await fetch(`${server.baseUrl}${API}/openapi.json`)).json()) as Node;
  });

  it('refuse an unknown field, top-level or nested, naming it, and write nothing', async () => {
    // The worker's upkeep may record a ledger check at any moment (CI once saw it land inside this window):
    // make the check due, and run the upkeep inside the window, so that case is always the one tested.
    await server.app.store.db.deleteFrom('ledger_checks').execute();
    const digest = await databaseDigest(server);
    const wrong: string[] = [];
    let sent = 0;
    for (const { name, path, method, op } of operationsOf(doc)) {
      const media = op.requestBody?.content?.['application/json'];
      if (!media) continue;
      assert.ok(isNode(media.example), `${name} has a request example to send`);
      const url = path.replace(/\{[^}]+\}/g, 'Unknown:019a2f4e-0000-7000-8000-000000000000');
      const nested = Object.keys(media.example).filter((k) => isNode(media.example[k]) && !OPEN.has(k));
      const cases: Array<[string, Node]> = [
        [UNKNOWN, { ...media.example, [UNKNOWN]: true }],
        ...nested.map((k): [string, Node] => [
          `${k}.${UNKNOWN}`,
          { ...media.example, [k]: { ...media.example[k], [UNKNOWN]: true } },
        ]),
      ];
      for (const [field, body] of cases) {
        sent++;
        const res = await p.api.request(method.toUpperCase(), url, body);
        const d = res.body?.details;
        if (
          res.status !== 400 ||
          res.body.code !== 'INVALID_INPUT' ||
          d?.field !== field ||
          d?.rule !== 'additionalProperties' ||
          !String(res.body.message).includes(field)
        )
          wrong.push(`${name} with ${field}: ${res.status} ${JSON.stringify(res.body)}`);
      }
    }
    assert.ok(sent >= 30, `every JSON-body operation was tried (${sent} requests)`);
    assert.deepEqual(wrong, [], 'unknown fields that were not refused by name');
    await checkDueLedgers(server.app.services.ctx);
    assert.deepEqual(await databaseDigest(server), digest, 'no refused request wrote anything');
  });

  it("store and echo the newest contract's customer KYC fields; a client's kycStatus changes nothing", async () => {
    const kyc = {
      email: 'ada@example.com',
      phoneNumber: '+442071234567',
      pepStatus: 'NOT_PEP',
      currencies: ['USD', 'EUR'],
      region: 'US',
      idType: 'PASSPORT',
      identifier: 'X1234567',
      sourceOfFundsCategories: ['SALARY'],
      endUserTermsConsent: { acceptedAt: '2025-10-13T09:30:00Z', ipAddress: '192.0.2.1', termsVersion: 'v1' },
    };
    const individual = await p.api.post('/customers', {
      customerType: 'INDIVIDUAL',
      platformCustomerId: 'kyc-fields-1',
      fullName: 'Ada Lovelace',
      kycStatus: 'REJECTED',
      ...kyc,
    });
    assert.equal(individual.status, 201, JSON.stringify(individual.body));
    const stored = (await p.api.get(`/customers/${individual.body.id}`)).body;
    for (const [field, value] of Object.entries(kyc)) assert.deepEqual(stored[field], value, `${field} is kept`);
    assert.equal(stored.kycStatus, individual.body.kycStatus, "the service's own status, not the client's");
    assert.notEqual(stored.kycStatus, 'REJECTED', 'the sandbox approves this name');

    const updated = await p.api.patch(`/customers/${individual.body.id}`, {
      customerType: 'INDIVIDUAL',
      email: 'ada.king@example.com',
    });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.deepEqual([updated.body.email, updated.body.identifier], ['ada.king@example.com', 'X1234567'], 'merged');

    const businessInfo = {
      legalName: 'Acme Widgets LLC',
      naicsCode: '5415',
      primaryContactFirstName: 'Grace',
      expectedCounterpartyCountries: ['MX'],
    };
    const business = await p.api.post('/customers', {
      customerType: 'BUSINESS',
      platformCustomerId: 'kyc-fields-2',
      businessInfo,
    });
    assert.equal(business.status, 201, JSON.stringify(business.body));
    assert.deepEqual(business.body.businessInfo, businessInfo, 'kept within businessInfo');
    const patched = await p.api.patch(`/customers/${business.body.id}`, {
      customerType: 'BUSINESS',
      kybStatus: business.body.kybStatus === 'REJECTED' ? 'APPROVED' : 'REJECTED',
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.kybStatus, business.body.kybStatus, 'a status sent by the client changes nothing');
  });
});
