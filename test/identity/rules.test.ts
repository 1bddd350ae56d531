import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { cleanFileName, parseDocumentFields, sniffContentType } from '../../src/domain/documents.ts';
import { sandboxKyb, sandboxOwnerKyc } from '../../src/domain/kyc.ts';
import {
  decideVerification,
  DOCUMENT_CATEGORIES,
  findVerificationErrors,
} from '../../src/domain/verification-rules.ts';
import { sandboxTestReceiver } from '../../src/domain/uma-receivers.ts';
import { listUmaProviders, UMA_PROVIDERS } from '../../src/domain/uma-providers.ts';

describe('identity rules (pure)', () => {
  it('recognises PDF, JPEG and PNG by their first bytes only', () => {
    assert.equal(sniffContentType(Buffer.from('%PDF-1.4')), 'application/pdf');
    assert.equal(sniffContentType(Buffer.from([0xff, 0xd8, 0xff, 0xdb])), 'image/jpeg');
    assert.equal(sniffContentType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), 'image/png');
    assert.equal(
      sniffContentType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a])),
      undefined,
      'a truncated PNG signature',
    );
    assert.equal(sniffContentType(Buffer.from('%PDF')), undefined);
    assert.equal(sniffContentType(Buffer.from('GIF89a')), undefined);
  });

  it('parses upload fields, refusing unknown names and documentHolder on replace', () => {
    assert.deepEqual(
      parseDocumentFields(
        { documentType: 'PASSPORT', country: 'FR', documentHolder: 'Customer:x', side: 'BACK' },
        'upload',
      ),
      {
        documentType: 'PASSPORT',
        country: 'FR',
        documentHolder: 'Customer:x',
        side: 'BACK',
      },
    );
    assert.throws(
      () => parseDocumentFields({ documentType: 'PASSPORT', country: 'FR', documentHolder: 'Customer:x' }, 'replace'),
      { details: { field: 'documentHolder', rule: 'unknownField' } },
    );
    assert.throws(
      () => parseDocumentFields({ documentType: 'PASSPORT', country: 'FR', documentNumber: ' ' }, 'replace'),
      { details: { field: 'documentNumber', rule: 'minLength' } },
    );
    assert.equal(cleanFileName('C:\\fakepath\\scan.pdf'), 'scan.pdf');
    assert.equal(cleanFileName('../../etc/passwd'), 'passwd');
    assert.equal(cleanFileName(undefined), 'document');
  });

  it('picks sandbox KYC and KYB outcomes by the last three characters', () => {
    assert.equal(sandboxOwnerKyc('Doe001'), 'PENDING');
    assert.equal(sandboxOwnerKyc('Doe002'), 'REJECTED');
    assert.equal(sandboxOwnerKyc('Doe1002'), 'REJECTED');
    assert.equal(sandboxOwnerKyc('Doe'), 'APPROVED');
    assert.equal(sandboxKyb(undefined), 'APPROVED');
    fc.assert(
      fc.property(fc.string(), (s) => {
        const outcome = sandboxKyb(s);
        return s.endsWith('001')
          ? outcome === 'PENDING'
          : s.endsWith('002')
            ? outcome === 'REJECTED'
            : outcome === 'APPROVED';
      }),
    );
  });

  it('finds every category, and one registry excerpt satisfies the three company categories', () => {
    const applicant = {
      id: 'Customer:b',
      customerType: 'BUSINESS' as const,
      profile: { address: {}, businessInfo: { legalName: 'A', registrationNumber: 'R', country: 'US' } },
      documentTypes: ['STATE_REGISTRY_EXCERPT', 'BANK_STATEMENT'],
    };
    const owners = [{ id: 'BeneficialOwner:o', kycStatus: 'APPROVED' as const, documentTypes: ['NATIONAL_ID'] }];
    assert.deepEqual(findVerificationErrors(applicant, owners), []);
    const errors = findVerificationErrors({ ...applicant, documentTypes: [] }, []);
    assert.deepEqual(
      errors.map((e) => e.type),
      [
        'MISSING_LEGAL_PRESENCE_DOCUMENT',
        'MISSING_CONTROL_STRUCTURE_DOCUMENT',
        'MISSING_OWNERSHIP_STRUCTURE_DOCUMENT',
        'MISSING_PROOF_OF_ADDRESS_DOCUMENT',
        'MISSING_BENEFICIAL_OWNER',
      ],
    );
    assert.deepEqual(errors[3]!.acceptedDocumentTypes, DOCUMENT_CATEGORIES.PROOF_OF_ADDRESS.accepted);
  });

  it('decides: errors hold the status, production waits for review, the sandbox follows the suffix', () => {
    const person = { id: 'Customer:p', customerType: 'INDIVIDUAL' as const, profile: {}, documentTypes: [] };
    const company = {
      id: 'Customer:b',
      customerType: 'BUSINESS' as const,
      profile: { businessInfo: { registrationNumber: 'X-001' } },
      documentTypes: [],
    };
    assert.deepEqual(
      decideVerification('sandbox', person, [{ resourceId: 'Customer:p', type: 'MISSING_FIELD', reason: 'r' }]),
      { verificationStatus: 'RESOLVE_ERRORS' },
    );
    assert.deepEqual(decideVerification('production', person, []), {
      verificationStatus: 'PENDING_MANUAL_REVIEW',
      customerStatus: 'PENDING',
    });
    assert.deepEqual(decideVerification('sandbox', person, []), {
      verificationStatus: 'APPROVED',
      customerStatus: 'APPROVED',
    });
    assert.deepEqual(decideVerification('sandbox', company, []), {
      verificationStatus: 'PENDING_MANUAL_REVIEW',
      customerStatus: 'PENDING',
    });
  });

  it('knows the sandbox test receivers on both domains, case-insensitively', () => {
    assert.deepEqual(sandboxTestReceiver('$success.eur@sandbox.grid.uma.money'), {
      currencies: ['EUR'],
      behaviour: 'SUCCESS',
    });
    assert.deepEqual(sandboxTestReceiver('$Fail.Compliance.USD@Sandbox.UMA.money'), {
      currencies: ['USD'],
      behaviour: 'FAIL_COMPLIANCE',
    });
    assert.equal(sandboxTestReceiver('$success.usd@uma.me'), undefined);
    assert.equal(sandboxTestReceiver('$success.jpy@sandbox.uma.money'), undefined);
  });

  it('pages the provider list without loss or repetition for any page size and order', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 7 }), fc.constantFrom('asc' as const, 'desc' as const), (limit, order) => {
        const names: string[] = [];
        let cursor: string | undefined;
        for (let i = 0; i < 20; i++) {
          const page = listUmaProviders({}, { limit, cursor, order });
          names.push(...page.data.map((p) => p.name));
          if (!page.hasMore)
            return (
              page.nextCursor === undefined &&
              names.length === UMA_PROVIDERS.length &&
              new Set(names).size === names.length
            );
          cursor = page.nextCursor;
        }
        return false;
      }),
    );
  });
});
