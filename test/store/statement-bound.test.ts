import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { InvariantError } from '../../src/domain/assert.ts';
import { MAX_STATEMENTS, statement, statementNumbered } from '../../src/store/compiled.ts';
import { RULES } from '../../src/store/rules.ts';

// Every compiled statement is kept for the life of the process, numbered (a deferred write's plan names its
// updates by number). One defined inside a function, once per call, would grow that list without end: the
// list is bounded, and statement() refuses past the bound, naming it. This file runs in a process of its
// own and imports no module that defines statements, so it can fill the list.
describe('the list of compiled statements is bounded', () => {
  it(`defining more than MAX_STATEMENTS (${MAX_STATEMENTS}) fails naming the bound`, () => {
    const build = () => statement((db) => db.selectFrom('platforms').select('id'));
    const first = build();
    assert.equal(statementNumbered(first.number), first, 'a statement is found again by its number');
    let defined = 1;
    assert.throws(
      () => {
        for (; defined <= MAX_STATEMENTS; defined++) build();
      },
      (err: unknown) => {
        assert.ok(err instanceof InvariantError, `an InvariantError, not: ${String(err)}`);
        assert.ok(err.message.includes(RULES.statementsBounded), `names the rule: ${err.message}`);
        assert.ok(err.message.includes(`MAX_STATEMENTS (${MAX_STATEMENTS})`), `names the bound: ${err.message}`);
        return true;
      },
    );
    assert.equal(defined, MAX_STATEMENTS, 'the bound counts every statement the process defined');
    assert.throws(() => statementNumbered(MAX_STATEMENTS), InvariantError, 'no statement past the bound');
  });
});
