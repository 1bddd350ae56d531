/**
 * Every error code the service can answer is one the newest public contract lists for its HTTP status
 * (its Error<status> schemas), where the contract lists any. The exceptions are the specification's own
 * codes, which bind where the two disagree; docs/contract.md lists them for people.
 */
import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { ERROR_CATALOGUE } from '../../src/domain/errors.ts';
import { loadContract } from './contract.ts';

/** Codes the specification names (its Errors section) that the contract's enums lack. */
const SPECIFICATION_CODES: Record<string, string> = {
  INSUFFICIENT_BALANCE: 'the specification names it with its recovery: fund the source account and retry',
  QUOTE_EXPIRED: 'the specification names it with its recovery: create a new quote',
};

function contractCodesByStatus(): Map<number, string[]> {
  const schemas = (loadContract().document.components as { schemas: Record<string, any> }).schemas;
  const byStatus = new Map<number, string[]>();
  for (const [name, schema] of Object.entries(schemas)) {
    const status = /^Error(\d{3})$/.exec(name)?.[1];
    const codes = schema?.properties?.code?.enum;
    if (status && Array.isArray(codes)) byStatus.set(Number(status), codes);
  }
  return byStatus;
}

describe('error codes', () => {
  it("every code is one the contract lists for its status, or the specification's own", () => {
    const listed = contractCodesByStatus();
    assert.ok(listed.get(404)?.includes('QUOTE_NOT_FOUND'), 'the contract lists its 404 codes');
    const strays = Object.entries(ERROR_CATALOGUE)
      .filter(([code, status]) => listed.has(status) && !listed.get(status)!.includes(code))
      .filter(([code]) => !SPECIFICATION_CODES[code])
      .map(([code, status]) => `${status} ${code}`);
    assert.deepEqual(strays, [], 'codes the contract does not list for their status');
  });

  it("the specification's own codes are still in the catalogue, and still missing from the contract", () => {
    const listed = contractCodesByStatus();
    for (const code of Object.keys(SPECIFICATION_CODES)) {
      const status = ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE];
      assert.ok(status, `${code} is a code the service answers`);
      assert.ok(!listed.get(status)?.includes(code), `${code} is not listed by the contract (drop the exception)`);
    }
  });
});
