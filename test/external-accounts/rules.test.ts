import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  ACCOUNT_TYPE_NAMES,
  ACCOUNT_TYPES,
  accountTypeRule,
  isIban,
  isUsable,
  sandboxSuffix,
  validateExternalAccount,
  type AccountTypeRule,
} from '../../src/domain/account-types.ts';
import { SANDBOX_VERIFICATION, verifyBeneficiary } from '../../src/domain/beneficiary-verification.ts';
import { AppError } from '../../src/domain/errors.ts';
import { isSupportedCurrency } from '../../src/domain/currencies.ts';
import { BUILD, REJECTIONS, UNSUPPORTED_CURRENCY_TYPES, valid, withInfo } from './fixtures.ts';

function violation(fn: () => unknown): { status: number; code: string; field: unknown; rule: unknown } {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof AppError, `expected an AppError, got ${String(err)}`);
    return { status: err.status, code: err.code, field: err.details?.field, rule: err.details?.rule };
  }
  assert.fail('expected a violation');
}

describe('account-type rule table', () => {
  it('is internally consistent', () => {
    for (const name of ACCOUNT_TYPE_NAMES) {
      const rule = accountTypeRule(name) as AccountTypeRule;
      assert.ok(rule.currencies.length > 0, name);
      const primaries = typeof rule.primary === 'string' ? [rule.primary] : rule.primary;
      for (const p of primaries)
        assert.ok(p in rule.required || p in rule.optional, `${name}: primary ${p} is a field`);
      if (rule.aliasOf) {
        const current = accountTypeRule(rule.aliasOf);
        assert.ok(current, `${name} aliases an existing type`);
        assert.deepEqual(
          [...current.currencies],
          [...rule.currencies],
          `${name} and ${rule.aliasOf} hold the same currency`,
        );
        // The legacy name identifies its accounts as the current one does (the current one may know more forms).
        const currentPrimaries = typeof current.primary === 'string' ? [current.primary] : current.primary;
        assert.ok(
          primaries.every((p) => currentPrimaries.includes(p)),
          `${name} is identified as ${rule.aliasOf} is`,
        );
      }
      if (rule.beneficiary === 'none')
        assert.equal(rule.paymentRails.length, 0, `${name}: self-custody types take no rails`);
      else assert.ok(rule.paymentRails.length > 0, `${name}: bank types list their rails`);
    }
    assert.equal(accountTypeRule('toString'), undefined, 'prototype keys are not account types');
  });

  it('has a valid example for every type; types of unsupported currencies end in supportedCurrency', () => {
    assert.deepEqual(Object.keys(BUILD).sort(), [...ACCOUNT_TYPE_NAMES].sort());
    for (const name of ACCOUNT_TYPE_NAMES) {
      const req = valid(name);
      if (UNSUPPORTED_CURRENCY_TYPES.includes(name)) {
        assert.equal(isSupportedCurrency(req.currency), false);
        assert.deepEqual(violation(() => validateExternalAccount(req, 'customer')).rule, 'supportedCurrency', name);
        continue;
      }
      const account = validateExternalAccount(req, 'customer');
      assert.equal(account.accountType, name);
      assert.equal(account.accountInfo.accountType, name);
      assert.equal(sandboxSuffix(account.primaryIdentifier), '000', `${name}: identifier ends in the tail`);
      const rule = ACCOUNT_TYPES[name] as AccountTypeRule;
      assert.equal(account.beneficiaryName === null, rule.beneficiary === 'none');
    }
  });

  for (const r of REJECTIONS) {
    it(`rejects ${r.name} (${r.field}: ${r.rule})`, () => {
      const v = violation(() => validateExternalAccount(r.request(), r.platform ? 'platform' : 'customer'));
      assert.deepEqual([v.status, v.code, v.field, v.rule], [400, 'INVALID_INPUT', r.field, r.rule]);
    });
  }

  it('lets platform accounts omit the beneficiary but checks one when given', () => {
    const noBeneficiary = withInfo(valid('USD_ACCOUNT'), { beneficiary: undefined });
    assert.equal(validateExternalAccount(noBeneficiary, 'platform').beneficiaryName, null);
    const bad = withInfo(valid('USD_ACCOUNT'), { beneficiary: { beneficiaryType: 'INDIVIDUAL' } });
    assert.equal(violation(() => validateExternalAccount(bad, 'platform')).field, 'accountInfo.beneficiary.fullName');
  });

  it('accepts both business shapes and infers a missing beneficiaryType', () => {
    const flat = validateExternalAccount(
      withInfo(valid('GBP_ACCOUNT'), { beneficiary: { legalName: 'Acme Ltd' } }),
      'customer',
    );
    assert.deepEqual(flat.accountInfo.beneficiary, { beneficiaryType: 'BUSINESS', legalName: 'Acme Ltd' });
    assert.equal(flat.beneficiaryName, 'Acme Ltd');
    const nested = validateExternalAccount(
      withInfo(valid('ZAR_ACCOUNT'), {
        beneficiary: { beneficiaryType: 'BUSINESS', businessInfo: { legalName: 'Acme SA', taxId: '9' } },
      }),
      'customer',
    );
    assert.equal(nested.beneficiaryName, 'Acme SA');
    const person = validateExternalAccount(
      withInfo(valid('NGN_ACCOUNT'), { beneficiary: { fullName: 'Ada Obi' } }),
      'customer',
    );
    assert.equal((person.accountInfo.beneficiary as { beneficiaryType: string }).beneficiaryType, 'INDIVIDUAL');
  });

  it('moves platformAccountId out of accountInfo', () => {
    const nested = validateExternalAccount(withInfo(valid('CAD_ACCOUNT'), { platformAccountId: 'ext-1' }), 'customer');
    assert.equal(nested.platformAccountId, 'ext-1');
    assert.equal('platformAccountId' in nested.accountInfo, false);
    assert.equal(
      validateExternalAccount({ ...valid('CAD_ACCOUNT'), platformAccountId: 'ext-2' }, 'customer').platformAccountId,
      'ext-2',
    );
  });

  it('checks IBANs by their mod-97 digits', () => {
    assert.equal(isIban('DE89370400440532013000'), true);
    assert.equal(isIban('GB82WEST12345698765432'), true);
    assert.equal(isIban('GB82WEST12345698765433'), false);
    assert.equal(isIban('de89370400440532013000'), false);
  });

  it('isUsable is ACTIVE and nothing else', () => {
    for (const status of ['PENDING', 'ACTIVE', 'UNDER_REVIEW', 'INACTIVE'])
      assert.equal(isUsable({ status }), status === 'ACTIVE');
  });
});

describe('sandboxSuffix', () => {
  const localChar = fc.constantFrom(...'abcxyz.-_+0123456789');
  const domain = fc.stringMatching(/^[a-z0-9]{1,10}(\.[a-z]{2,5}){0,2}$/);
  const three = fc.stringMatching(/^[0-9]{3}$/);

  it('reads the last three digits', () => {
    fc.assert(
      fc.property(
        fc.array(localChar, { maxLength: 30 }).map((a) => a.join('')),
        three,
        (prefix, d) => sandboxSuffix(prefix + d) === d,
      ),
    );
  });

  it('reads them before the @ when the identifier has a domain part', () => {
    fc.assert(
      fc.property(
        fc.array(localChar, { maxLength: 30 }).map((a) => a.join('')),
        three,
        domain,
        (prefix, d, dom) => sandboxSuffix(`${prefix}${d}@${dom}`) === d,
      ),
    );
  });

  it("is '' when the identifier does not end in three digits", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }),
        fc.constantFrom('a', 'Z', '.', '-'),
        (s, end) => sandboxSuffix(s.replace(/@/g, '') + end) === '',
      ),
    );
    assert.equal(sandboxSuffix('12'), '');
    assert.equal(sandboxSuffix(''), '');
    assert.equal(sandboxSuffix('user.12@pix.com.br'), '');
  });

  it('examples from the sandbox guides', () => {
    assert.equal(sandboxSuffix('testuser.002@pix.com.br'), '002');
    assert.equal(sandboxSuffix('+254712345105'), '105');
    assert.equal(sandboxSuffix('DE89370400440532013000'), '000');
    assert.equal(sandboxSuffix('jane.103@okaxis'), '103');
  });
});

describe('beneficiary verification outcomes', () => {
  const cases: [string, string | number, string | undefined][] = [
    ['102', 'NOT_MATCHED', 'MARIA FERNANDA OLIVEIRA'],
    ['103', 'PARTIAL_MATCH', 'JANE DOEE'],
    ['104', 'PENDING', undefined],
    ['105', 400, undefined],
    ['106', 'UNSUPPORTED', undefined],
    ['107', 'CHECKED_BY_RECEIVING_FI', undefined],
    ['108', 'MATCHED', 'JANE DOE'],
    ['109', 500, undefined],
    ['000', 'MATCHED', 'JANE DOE'],
    ['', 'MATCHED', 'JANE DOE'],
  ];
  for (const [suffix, expected, name] of cases) {
    it(`sandbox suffix '${suffix}' → ${expected}`, () => {
      const id = `12345${suffix}`;
      if (typeof expected === 'number') {
        const v = violation(() => verifyBeneficiary('sandbox', id, 'Jane Doe'));
        assert.equal(v.status, expected);
        assert.equal(v.code, expected === 400 ? 'INVALID_BANK_ACCOUNT' : 'GRID_SWITCH_ERROR');
        return;
      }
      assert.deepEqual(
        verifyBeneficiary('sandbox', id, 'Jane Doe'),
        name === undefined ? { status: expected } : { status: expected, verifiedName: name },
      );
    });
  }

  it('names the other holder differently from the beneficiary', () => {
    assert.notEqual(
      verifyBeneficiary('sandbox', '1102', 'Maria Fernanda Oliveira').verifiedName,
      'MARIA FERNANDA OLIVEIRA',
    );
  });

  it('without a name to compare, every row of the table still holds, with no verified name', () => {
    assert.deepEqual(verifyBeneficiary('sandbox', 'x000', null), { status: 'MATCHED' });
    assert.deepEqual(verifyBeneficiary('sandbox', 'x102', null), { status: 'NOT_MATCHED' });
    assert.deepEqual(verifyBeneficiary('sandbox', 'x103', null), { status: 'PARTIAL_MATCH' });
    assert.deepEqual(verifyBeneficiary('sandbox', 'x104', null), { status: 'PENDING' });
    assert.deepEqual(verifyBeneficiary('sandbox', 'x106', null), { status: 'UNSUPPORTED' });
    assert.throws(() => verifyBeneficiary('sandbox', 'x105', null), AppError);
  });

  it('is not simulated in production', () => {
    for (const suffix of Object.keys(SANDBOX_VERIFICATION))
      assert.deepEqual(verifyBeneficiary('production', `1${suffix}`, 'Jane Doe'), { status: 'UNSUPPORTED' });
  });
});
