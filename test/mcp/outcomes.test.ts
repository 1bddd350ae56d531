/**
 * The outcome names of the MCP tools are the sandbox's suffix tables under other words: each name picks the
 * suffix whose row it names, the spellings people use find the same row, and docs/agents.md lists every tool.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { namedOutcomes, outcomeNamed, outcomesOfSuffix, PAYMENT_KINDS } from '../../src/mcp/outcomes.ts';
import { transferOutcome, quoteOutcome } from '../../src/rails/sandbox-outcomes.ts';
import { describe, it } from '../helpers/node-test.ts';
import { EXPECTED_TOOLS } from './flow.ts';

describe('outcomes by name', () => {
  it('pick the suffix the rail reads for that name', () => {
    const cases: Array<[string, string, string]> = [
      ['transfer-out', 'completes', 'COMPLETE'],
      ['transfer-out', 'fails: INVALID_BANK_ACCOUNT', 'FAIL'],
      ['transfer-out', 'takes 30 seconds, then fails: COUNTERPARTY_POST_TX_FAILED', 'FAIL_AFTER'],
      ['quote', 'takes 6 minutes', 'COMPLETE_AFTER'],
      ['quote', 'returned after completion', 'COMPLETE_THEN_RETURN'],
    ];
    for (const [kind, name, expected] of cases) {
      const picked = outcomeNamed(kind as 'quote', name);
      assert.ok('found' in picked, `${kind} knows "${name}"`);
      const account = `123456${picked.found.suffix}`;
      const outcome = kind === 'quote' ? quoteOutcome(account) : transferOutcome(account, 'OUT');
      assert.equal(outcome.kind, expected, `${name} → ${picked.found.suffix}`);
    }
    const failed = outcomeNamed('transfer-out', 'fails: INVALID_BANK_ACCOUNT');
    assert.ok('found' in failed && failed.found.suffix === '003', 'INVALID_BANK_ACCOUNT is 003');
  });

  it('find the same row however it is spelled, and list the names for one that is unknown', () => {
    for (const spelling of ['FAILS with invalid_bank_account', 'fails:INVALID_BANK_ACCOUNT', ' fails:  x ']) {
      const picked = outcomeNamed('transfer-out', spelling);
      if (spelling.includes('x ')) assert.ok('known' in picked, 'an unknown reason is unknown');
      else assert.ok('found' in picked && picked.found.suffix === '003', `"${spelling}" is 003`);
    }
    assert.ok('found' in outcomeNamed('quote', 'takes 6 min, then completes'), 'takes 6 min');
    const unknown = outcomeNamed('transfer-out', 'returned after completion');
    assert.ok('known' in unknown && unknown.known.includes('completes'), 'transfers are never returned here');
  });

  it('are unique per table, and say what the account does under every table', () => {
    for (const kind of PAYMENT_KINDS) {
      const names = namedOutcomes(kind).map((row) => row.name);
      assert.equal(new Set(names).size, names.length, `${kind}: ${names.join(', ')}`);
    }
    assert.deepEqual(outcomesOfSuffix('005'), {
      'transfer-out': 'takes 30 seconds, then fails: COUNTERPARTY_POST_TX_FAILED',
      'transfer-in': 'takes 30 seconds, then fails: COLLECTION_FAILED',
      quote: 'returned after completion',
    });
  });

  it('docs/agents.md names every tool', () => {
    const page = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'agents.md'), 'utf8');
    for (const name of EXPECTED_TOOLS) assert.ok(page.includes(`| \`${name}\` |`), `docs/agents.md lists ${name}`);
  });
});
