import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { useServer, type TestPlatform } from '../helpers/harness.ts';
import { business, createCustomer, eventsOf, individual, JPEG, owner, PDF, sendForm } from './fixtures.ts';

describe('beneficial owners and verifications', () => {
  let p: TestPlatform;
  let other: TestPlatform;
  const server = useServer();
  before(async () => {
    p = await server.platform('kyb');
    other = await server.platform('other');
  });

  const upload = (holder: string, documentType: string, creds = p.sandbox) =>
    sendForm(
      server,
      creds,
      'POST',
      '/documents',
      { documentType, country: 'US', documentHolder: holder },
      { bytes: PDF, name: `${documentType}.pdf` },
    );

  describe('beneficial owners', () => {
    it('sets sandbox KYC by the last name suffix and production to PENDING', async () => {
      const company = await createCustomer(p, business('bo-suffix'));
      const expected: Array<[string, string]> = [
        ['Smith001', 'PENDING'],
        ['Smith002', 'REJECTED'],
        ['Smith', 'APPROVED'],
        ['Smith003', 'APPROVED'],
      ];
      for (const [lastName, status] of expected) {
        const res = await p.api.post('/beneficial-owners', owner(company.id, lastName));
        assert.equal(res.status, 201, JSON.stringify(res.body));
        assert.equal(res.body.kycStatus, status, lastName);
        assert.match(res.body.id, /^BeneficialOwner:/);
        assert.deepEqual(res.body.roles, ['UBO', 'DIRECTOR']);
      }
      const prodCompany = await createCustomer(p, business('bo-prod'), true);
      assert.equal((await p.prod.post('/beneficial-owners', owner(prodCompany.id, 'Smith'))).body.kycStatus, 'PENDING');
    });

    it('refuses individuals, unknown customers and bad personal details, naming the field', async () => {
      const person = await createCustomer(p, individual('bo-person'));
      const company = await createCustomer(p, business('bo-bad'));
      const indiv = await p.api.post('/beneficial-owners', owner(person.id));
      assert.equal(indiv.status, 400);
      assert.equal(indiv.body.details.field, 'customerId');
      assert.equal(
        (await p.api.post('/beneficial-owners', owner('Customer:00000000-0000-7000-8000-000000000000'))).status,
        404,
      );
      const theirs = await createCustomer(other, business('theirs'));
      assert.equal((await p.api.post('/beneficial-owners', owner(theirs.id))).status, 404);
      const base = owner(company.id);
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ ...base, personalInfo: { ...base.personalInfo, birthDate: '1978-02-30' } }, 'personalInfo.birthDate'],
        [{ ...base, personalInfo: { ...base.personalInfo, nationality: 'ZZ' } }, 'personalInfo.nationality'],
        [{ ...base, personalInfo: { ...base.personalInfo, phoneNumber: '0044 20 1234' } }, 'personalInfo.phoneNumber'],
        [{ ...base, personalInfo: { ...base.personalInfo, idType: 'LIBRARY_CARD' } }, 'personalInfo.idType'],
        [
          { ...base, personalInfo: { ...base.personalInfo, address: { ...base.personalInfo.address, country: 'QQ' } } },
          'personalInfo.address.country',
        ],
        [{ ...base, ownershipPercentage: 101 }, 'ownershipPercentage'],
        [{ ...base, roles: ['OWNER'] }, 'roles.0'],
        [{ ...base, personalInfo: { ...base.personalInfo, lastName: undefined } }, 'personalInfo.lastName'],
      ];
      for (const [body, field] of cases) {
        const res = await p.api.post('/beneficial-owners', body);
        assert.equal(res.status, 400, field);
        assert.equal(res.body.details.field, field);
      }
      assert.equal(
        (await p.api.get(`/beneficial-owners?customerId=${encodeURIComponent(company.id)}`)).body.totalCount,
        0,
      );
    });

    it('lists, filters by role, reads, patches, and shows owners on the business customer', async () => {
      const company = await createCustomer(p, business('bo-list'));
      const a = (await p.api.post('/beneficial-owners', owner(company.id, 'Alpha'))).body;
      const b = (await p.api.post('/beneficial-owners', owner(company.id, 'Beta', { roles: ['TRUSTEE'] }))).body;
      const list = await p.api.get(`/beneficial-owners?customerId=${encodeURIComponent(company.id)}&limit=1`);
      assert.equal(list.body.totalCount, 2);
      assert.deepEqual(
        list.body.data.map((o: any) => o.id),
        [a.id],
      );
      assert.equal(list.body.hasMore, true);
      const trustees = await p.api.get(`/beneficial-owners?customerId=${encodeURIComponent(company.id)}&role=TRUSTEE`);
      assert.deepEqual(
        trustees.body.data.map((o: any) => o.id),
        [b.id],
      );
      assert.deepEqual((await p.api.get(`/beneficial-owners/${a.id}`)).body, a);
      assert.equal((await other.api.get(`/beneficial-owners/${a.id}`)).status, 404);

      const patched = await p.api.patch(`/beneficial-owners/${a.id}`, {
        ownershipPercentage: 20,
        personalInfo: { lastName: 'Alpha002' },
      });
      assert.equal(patched.status, 200);
      assert.equal(patched.body.ownershipPercentage, 20);
      assert.equal(patched.body.personalInfo.lastName, 'Alpha002');
      assert.equal(patched.body.personalInfo.firstName, 'Jane', 'personalInfo merges');
      assert.equal(patched.body.kycStatus, 'REJECTED', 'the sandbox re-runs KYC on the new name');
      assert.equal(
        (await p.api.patch(`/beneficial-owners/${a.id}`, { personalInfo: { birthDate: '2001-13-01' } })).body.details
          .field,
        'personalInfo.birthDate',
      );

      const customer = await p.api.get(`/customers/${company.id}`);
      assert.deepEqual(
        customer.body.beneficialOwners.map((o: any) => o.id),
        [a.id, b.id],
      );
      assert.equal(customer.body.beneficialOwners[0].kycStatus, 'REJECTED');
      const listed = await p.api.get(`/customers?platformCustomerId=bo-list`);
      assert.equal(listed.body.data[0].beneficialOwners.length, 2);
    });
  });

  describe('verifications', () => {
    it('lists what an individual is missing, then approves in the sandbox', async () => {
      const person = await createCustomer(p, {
        customerType: 'INDIVIDUAL',
        platformCustomerId: 'v-person',
        fullName: 'Ada',
      });
      const first = await p.api.post('/verifications', { customerId: person.id });
      assert.equal(first.status, 200);
      assert.equal(first.body.verificationStatus, 'RESOLVE_ERRORS');
      const fields = first.body.errors.filter((e: any) => e.type === 'MISSING_FIELD').map((e: any) => e.field);
      assert.deepEqual(fields, ['birthDate', 'nationality', 'address']);
      const identity = first.body.errors.find((e: any) => e.type === 'MISSING_IDENTITY_DOCUMENT');
      assert.deepEqual(identity.acceptedDocumentTypes, ['PASSPORT', 'DRIVERS_LICENSE', 'NATIONAL_ID']);
      assert.equal(identity.resourceId, person.id);
      const missing = first.body.errors.map((e: any) => e.type);
      assert.ok(missing.includes('MISSING_PROOF_OF_ADDRESS_DOCUMENT'), 'proof of address is missing');

      await p.api.patch(`/customers/${person.id}`, individual('v-person'));
      await upload(person.id, 'PASSPORT');
      const utility = (await upload(person.id, 'UTILITY_BILL')).body;
      // Before submission a document can still be deleted and re-uploaded.
      assert.equal((await p.api.delete(`/documents/${utility.id}`)).status, 204);
      const bill = (await upload(person.id, 'UTILITY_BILL')).body;

      const done = await p.api.post('/verifications', { customerId: person.id });
      assert.equal(done.body.verificationStatus, 'APPROVED');
      assert.deepEqual(done.body.errors, []);
      assert.notEqual(done.body.id, first.body.id, 'each submission is a new verification');
      assert.equal((await p.api.get(`/customers/${person.id}`)).body.kycStatus, 'APPROVED');
      // Submitted documents are evidence now.
      const del = await p.api.delete(`/documents/${bill.id}`);
      assert.equal(del.status, 409);
      assert.equal(del.body.details.verificationId, done.body.id);
      const put = await sendForm(
        server,
        p.sandbox,
        'PUT',
        `/documents/${bill.id}`,
        { documentType: 'UTILITY_BILL', country: 'US' },
        { bytes: JPEG, name: 'x.jpg' },
      );
      assert.equal(put.status, 409);

      const events = (await eventsOf(server, p.platformId)).filter(
        (e) => e.object_id === first.body.id || e.object_id === done.body.id || e.object_id === person.id,
      );
      assert.deepEqual(
        events.map((e) => e.type),
        ['VERIFICATION.RESOLVE_ERRORS', 'VERIFICATION.APPROVED'],
        'the sandbox customer was APPROVED already: no customer event',
      );
      assert.deepEqual(JSON.parse(events[1]!.data), done.body);

      const list = await p.api.get(`/verifications?customerId=${encodeURIComponent(person.id)}`);
      assert.deepEqual(
        list.body.data.map((v: any) => v.id),
        [done.body.id, first.body.id],
        'newest first',
      );
      const onlyErrors = await p.api.get(
        `/verifications?customerId=${encodeURIComponent(person.id)}&verificationStatus=RESOLVE_ERRORS`,
      );
      assert.deepEqual(
        onlyErrors.body.data.map((v: any) => v.id),
        [first.body.id],
      );
      assert.deepEqual((await p.api.get(`/verifications/${done.body.id}`)).body, done.body);
      assert.equal((await other.api.get(`/verifications/${done.body.id}`)).status, 404);
    });

    async function readyBusiness(platformCustomerId: string, registrationNumber: string, prod = false) {
      const company = await createCustomer(p, business(platformCustomerId, registrationNumber), prod);
      const creds = prod ? p.production : p.sandbox;
      const client = prod ? p.prod : p.api;
      const bo = (await client.post('/beneficial-owners', owner(company.id))).body;
      // One registry excerpt shows legal presence, company details, control and ownership at once.
      for (const [holder, type] of [
        [company.id, 'STATE_REGISTRY_EXCERPT'],
        [company.id, 'PROOF_OF_ADDRESS'],
        [bo.id, 'PASSPORT'],
      ] as const) {
        assert.equal((await upload(holder, type, creds)).status, 201);
      }
      return { company, bo };
    }

    it('names missing business documents by category and the missing beneficial owner', async () => {
      const company = await createCustomer(
        p,
        business('v-empty', 'R-100', { businessInfo: { legalName: 'Empty Co' } }),
      );
      const res = await p.api.post('/verifications', { customerId: company.id });
      assert.equal(res.body.verificationStatus, 'RESOLVE_ERRORS');
      const types = new Set(res.body.errors.map((e: any) => e.type));
      for (const t of [
        'MISSING_LEGAL_PRESENCE_DOCUMENT',
        'MISSING_CONTROL_STRUCTURE_DOCUMENT',
        'MISSING_OWNERSHIP_STRUCTURE_DOCUMENT',
        'MISSING_PROOF_OF_ADDRESS_DOCUMENT',
        'MISSING_BENEFICIAL_OWNER',
      ]) {
        assert.ok(types.has(t), t);
      }
      assert.deepEqual(
        res.body.errors.filter((e: any) => e.type === 'MISSING_FIELD').map((e: any) => e.field),
        ['businessInfo.registrationNumber', 'businessInfo.country'],
      );

      const { company: ready, bo } = await readyBusiness('v-owner-doc', 'R-100');
      await p.api.post('/beneficial-owners', owner(ready.id, 'Nodoc'));
      const ownerMissing = await p.api.post('/verifications', { customerId: ready.id });
      assert.equal(ownerMissing.body.verificationStatus, 'RESOLVE_ERRORS');
      assert.equal(ownerMissing.body.errors.length, 1);
      assert.equal(ownerMissing.body.errors[0].type, 'MISSING_IDENTITY_DOCUMENT');
      assert.notEqual(ownerMissing.body.errors[0].resourceId, bo.id);
    });

    it('decides sandbox KYB by the registration number suffix and moves kybStatus with events', async () => {
      const cases: Array<[string, string, string]> = [
        ['RN-12001', 'PENDING_MANUAL_REVIEW', 'PENDING'],
        ['RN-12002', 'REJECTED', 'REJECTED'],
        ['RN-12345', 'APPROVED', 'APPROVED'],
      ];
      for (const [registrationNumber, verificationStatus, kybStatus] of cases) {
        const { company } = await readyBusiness(`v-${registrationNumber}`, registrationNumber);
        const res = await p.api.post('/verifications', { customerId: company.id });
        assert.equal(res.body.verificationStatus, verificationStatus, registrationNumber);
        assert.deepEqual(res.body.errors, []);
        const customer = (await p.api.get(`/customers/${company.id}`)).body;
        assert.equal(customer.kybStatus, kybStatus);
        const events = (await eventsOf(server, p.platformId)).filter(
          (e) => e.object_id === company.id || e.object_id === res.body.id,
        );
        const expected = [
          `VERIFICATION.${verificationStatus}`,
          ...(kybStatus === 'APPROVED' ? [] : [`CUSTOMER.KYB_${kybStatus}`]),
        ];
        assert.deepEqual(
          events.map((e) => e.type),
          expected,
          registrationNumber,
        );
        if (kybStatus !== 'APPROVED') assert.deepEqual(JSON.parse(events[1]!.data), customer);
      }
    });

    it('puts a rejected beneficial owner in the errors', async () => {
      const { company } = await readyBusiness('v-bad-owner', 'R-100');
      const rejected = (await p.api.post('/beneficial-owners', owner(company.id, 'Smith002'))).body;
      await upload(rejected.id, 'NATIONAL_ID');
      const res = await p.api.post('/verifications', { customerId: company.id });
      assert.equal(res.body.verificationStatus, 'RESOLVE_ERRORS');
      assert.deepEqual(
        res.body.errors.map((e: any) => [e.resourceId, e.type]),
        [[rejected.id, 'APPLICANT_REJECTED']],
      );
    });

    it('leaves production submissions in manual review with the customer PENDING', async () => {
      const { company } = await readyBusiness('v-prod', 'RN-12345', true);
      const res = await p.prod.post('/verifications', { customerId: company.id });
      assert.equal(res.body.verificationStatus, 'PENDING_MANUAL_REVIEW');
      assert.equal((await p.prod.get(`/customers/${company.id}`)).body.kybStatus, 'PENDING');
      const events = (await eventsOf(server, p.platformId, 'production')).filter(
        (e) => e.object_id === company.id || e.object_id === res.body.id,
      );
      assert.deepEqual(
        events.map((e) => e.type),
        ['VERIFICATION.PENDING_MANUAL_REVIEW', 'CUSTOMER.KYB_PENDING'],
      );
    });

    it('answers 404 for unknown customers and 400 without customerId', async () => {
      assert.equal(
        (await p.api.post('/verifications', { customerId: 'Customer:00000000-0000-7000-8000-000000000000' })).status,
        404,
      );
      const missing = await p.api.post('/verifications', {});
      assert.equal(missing.status, 400);
      assert.equal(missing.body.details.field, 'customerId');
      assert.equal((await p.api.get('/verifications/Verification:nope')).status, 404);
      assert.equal((await p.api.get('/verifications?verificationStatus=DONE')).status, 400);
    });
  });
});
