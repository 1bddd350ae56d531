/**
 * Requests shaped as the official TypeScript client types them: the contract's own request examples, and
 * an account of every type this service supports, each with `accountInfo.countries` (the client's types
 * put it in every fiat account), plus the contract's request check. Every one is accepted, and every
 * answer holds against the contract but for the documented disagreements.
 */
import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { ACCOUNT_TYPE_NAMES, accountTypeRule, type AccountType } from '../../src/domain/account-types.ts';
import { isSupportedCurrency } from '../../src/domain/currencies.ts';
import { BUILD } from '../external-accounts/fixtures.ts';
import { useServer, type TestPlatform } from '../helpers/harness.ts';
import { loadContract } from './contract.ts';
import { explained } from './disagreements.ts';

const contract = loadContract();

/** The request examples the contract gives for an operation, by name. */
function requestExamples(path: string): Record<string, Record<string, any>> {
  const op = (contract.document.paths as Record<string, any>)[path].post;
  const examples = op.requestBody.content['application/json'].examples as Record<string, { value: any }>;
  return Object.fromEntries(Object.entries(examples).map(([name, e]) => [name, structuredClone(e.value)]));
}

const schemas = (contract.document as Record<string, any>).components.schemas as Record<string, any>;
const named = (node: any) => (node?.$ref ? schemas[String(node.$ref).split('/').pop()!] : node);

/** The contract's account-info schema of each account type it names (its discriminator mapping). */
const CONTRACT_TYPES: Record<string, any> = Object.fromEntries(
  Object.entries(schemas.ExternalAccountCreateInfoOneOf.discriminator.mapping as Record<string, string>).map(
    ([type, ref]) => [type, named({ $ref: ref })],
  ),
);

/** Every property name a schema declares, through allOf. */
function propertiesOf(node: any): string[] {
  const schema = named(node);
  return [...(schema.allOf ?? []).flatMap(propertiesOf), ...Object.keys(schema.properties ?? {})];
}

/**
 * As the client's request types shape it: countries on a fiat account (wallets and Lightning have none),
 * and an individual beneficiary's countryOfResidence, which those types require.
 */
function clientShaped(body: Record<string, any>): Record<string, any> {
  const info = body.accountInfo as Record<string, any>;
  if (accountTypeRule(String(info.accountType))?.beneficiary === 'none') return body;
  const beneficiary =
    info.beneficiary && info.beneficiary.beneficiaryType !== 'BUSINESS'
      ? { countryOfResidence: 'US', ...info.beneficiary }
      : info.beneficiary;
  return { ...body, accountInfo: { ...info, countries: ['US'], ...(beneficiary ? { beneficiary } : {}) } };
}

describe("requests shaped as the official client's types", () => {
  let p: TestPlatform;
  let customerId: string;
  const server = useServer();
  before(async () => {
    p = await server.platform('client-shapes');
    customerId = (await p.api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'shapes-1' })).body
      .id;
  });

  /** Sends one request; returns what breaks the contract in the request or the answer, unexplained. */
  async function send(path: string, body: Record<string, any>): Promise<string[]> {
    const problems = contract.checkRequest('POST', path, body).map((v) => `request: ${v}`);
    const res = await p.api.post(path, body);
    if (res.status !== 201) return [...problems, `${res.status} ${JSON.stringify(res.body)}`];
    const violations = contract.checkResponse('POST', path, 201, res.body).map((v) => `POST ${path} 201: ${v}`);
    return [...problems, ...violations.filter((v) => !explained(v))];
  }

  it("the contract's own request examples, with countries, on both routes", async () => {
    const problems: string[] = [];
    for (const [path, owner] of [
      ['/customers/external-accounts', { customerId }],
      ['/platform/external-accounts', {}],
    ] as const) {
      const examples = requestExamples(path);
      assert.ok(Object.keys(examples).length >= 2, `the contract has examples for ${path}`);
      for (const [name, example] of Object.entries(examples)) {
        const { customerId: _theirs, ...rest } = example;
        for (const problem of await send(path, clientShaped({ ...rest, ...owner })))
          problems.push(`${path} ${name}: ${problem}`);
      }
    }
    assert.deepEqual(problems, [], 'every example is accepted and answered as the contract says');
  });

  it('every account type this service supports, with countries where the client puts them', async () => {
    const problems: string[] = [];
    let sent = 0;
    const current = (ACCOUNT_TYPE_NAMES as readonly AccountType[]).filter((type) => type in CONTRACT_TYPES);
    const person = { beneficiaryType: 'INDIVIDUAL', fullName: 'Asha Rao' };
    const extra = [
      // The contract's INR bank account (NEFT/RTGS) and its US wire fields.
      {
        currency: 'INR',
        accountInfo: {
          accountType: 'INR_ACCOUNT',
          accountNumber: '000111222333',
          ifsc: 'HDFC0001234',
          rail: 'NEFT',
          bankName: 'Example Bank',
          paymentRails: ['NEFT'],
          beneficiary: person,
        },
      },
      {
        currency: 'USD',
        accountInfo: {
          accountType: 'USD_ACCOUNT',
          accountNumber: '4417001',
          routingNumber: '021000021',
          bankAccountType: 'SAVINGS',
          intermediaryBankName: 'JPMorgan Chase Bank',
          intermediaryRoutingNumber: '021000021',
          fiToFiInformation: '/BNF/Invoice 4471',
          paymentRails: ['WIRE'],
          beneficiary: person,
        },
      },
    ];
    for (const [type, request] of [
      ...current.map((t) => [t, BUILD[t]('000')] as const),
      ...extra.map((r) => [`${r.accountInfo.accountType} (contract fields)`, r] as const),
    ]) {
      const body = clientShaped({ ...request, customerId });
      // Wallets in currencies this service cannot hold (USDC, USDT) are refused by their own rule.
      if (!isSupportedCurrency(body.currency)) continue;
      sent++;
      for (const problem of await send('/customers/external-accounts', body)) problems.push(`${type}: ${problem}`);
    }
    assert.ok(sent >= 15, `every account type with a currency this service holds was tried (${sent})`);
    assert.deepEqual(problems, [], 'every typed request is accepted and answered as the contract says');
  });

  it('every account-info field the contract defines for a type this service supports is one its rules take', () => {
    const missing: string[] = [];
    const always = new Set(['accountType', 'beneficiary', 'paymentRails', 'platformAccountId', 'countries']);
    for (const [type, schema] of Object.entries(CONTRACT_TYPES)) {
      const rule = accountTypeRule(type);
      if (!rule) continue;
      const taken = new Set([...always, ...Object.keys(rule.required), ...Object.keys(rule.optional)]);
      for (const field of propertiesOf(schema)) if (!taken.has(field)) missing.push(`${type}: accountInfo.${field}`);
    }
    assert.deepEqual(missing, [], 'fields a typed client may send that the account rules would refuse');
  });

  it('the rails an account answers by default are ones the contract lists for its type', () => {
    const responseTypes = schemas.ExternalAccountInfoOneOf.discriminator.mapping as Record<string, string>;
    const railsOf = (node: any): string[] | undefined => {
      const schema = named(node);
      for (const part of schema.allOf ?? []) {
        const found = railsOf(part);
        if (found) return found;
      }
      return schema.properties?.paymentRails?.items?.enum;
    };
    const strays: string[] = [];
    for (const [type, ref] of Object.entries(responseTypes)) {
      const rule = accountTypeRule(type);
      const listed = railsOf({ $ref: ref });
      if (!rule || !listed) continue;
      for (const rail of rule.paymentRails) if (!listed.includes(rail)) strays.push(`${type}: ${rail}`);
    }
    assert.deepEqual(strays, [], 'default rails the contract does not list');
  });
});
