// The fixtures file without a server (src/cli/fixtures.ts): how references resolve, how problems are named,
// and which requests share an Idempotency-Key. fixtures.test.ts runs the command against a real server.
import assert from 'node:assert/strict';
import {
  checkFixtures,
  FixtureReferenceError,
  idempotencyKeyOf,
  resolveStep,
  type FixtureStep,
} from '../../src/cli/fixtures.ts';
import { describe, it } from '../helpers/node-test.ts';

const step = (fields: Partial<FixtureStep>): FixtureStep => ({ name: 'next', method: 'POST', path: '/x', ...fields });

describe('fixtures file', () => {
  const answers = new Map<string, unknown>([
    ['customer', { id: 'Customer:01', tags: ['a', 'b'], address: { city: 'Paris' }, count: 3, note: null }],
    ['list', { data: [{ id: 'Account:9' }] }],
  ]);

  it('a whole-string reference keeps its JSON type; inside a longer string the value is written in', () => {
    const request = resolveStep(
      step({
        body: {
          count: '${customer:count}',
          address: '${customer:address}',
          tag: '${customer:tags.1}',
          text: 'n=${customer:count} ${env:WHO}',
          nested: [{ id: '${list:data.0.id}' }],
          literal: '$${customer:id}',
          untouched: 7,
        },
      }),
      answers,
      { WHO: 'me' },
    );
    assert.deepEqual(request.body, {
      count: 3,
      address: { city: 'Paris' },
      tag: 'b',
      text: 'n=3 me',
      nested: [{ id: 'Account:9' }],
      literal: '${customer:id}',
      untouched: 7,
    });
  });

  it('percent-encodes values in the path, keeping : @ and $ readable', () => {
    const env = { ODD: 'a/b?c&d $x@y:z' };
    const { path } = resolveStep(step({ path: '/c/${customer:id}?q=${env:ODD}' }), answers, env);
    assert.equal(path, '/c/Customer:01?q=a%2Fb%3Fc%26d%20$x@y:z');
  });

  it('names the step and the reference when an answer lacks the path, or a value cannot go in a string', () => {
    const cases: Array<[Partial<FixtureStep>, RegExp]> = [
      [
        { path: '/x/${list:data.1.id}' },
        /step "next": path refers to \$\{list:data\.1\.id\}, but the answer of "list" has no data\.1 \(it holds 1 it/,
      ],
      [
        { body: { a: { b: '${customer:nope}' } } },
        /body\.a\.b refers to \$\{customer:nope\}, but the answer of "customer" has no nope$/,
      ],
      [
        { body: { a: 'x ${customer:address}' } },
        /body\.a puts \$\{customer:address\} inside a longer string, but it is an object/,
      ],
      [{ body: { a: 'x ${customer:note}' } }, /but it is null/],
      [{ body: { a: '${env:MISSING}' } }, /refers to \$\{env:MISSING\}, but MISSING is not set/],
    ];
    for (const [fields, message] of cases)
      assert.throws(
        () => resolveStep(step(fields), answers, {}),
        (err: unknown) => {
          assert.ok(err instanceof FixtureReferenceError, 'a FixtureReferenceError');
          assert.match(err.message, message, 'the message');
          return true;
        },
      );
  });

  it('checks the whole file at once and names each problem by step and field', () => {
    const checked = checkFixtures(
      {
        fixtures: [
          { name: 'a', method: 'GET', path: '/x', body: { k: 1 } },
          { name: 'a', method: 'POST', path: '/y/${b:id}', body: { v: '${a:id} ${oops' } },
          { name: 'b', method: 'POST', path: '/z' },
        ],
      },
      {},
    );
    assert.deepEqual(checked.problems, [
      'step "a" (fixtures[0]): body is not sent with GET: remove it',
      'step "a" (fixtures[1]): name is used by an earlier step: names must be unique',
      'step "a" (fixtures[1]): path refers to ${b:id}, a later step: a step can use only the answers before it',
      'step "a" (fixtures[1]): body.v has a ${ without its closing } (write $${ for a literal ${)',
    ]);
    assert.deepEqual(checkFixtures({ fixtures: [] }, {}).problems, ['the file: fixtures must hold at least one step']);
    assert.deepEqual(checkFixtures([], {}).problems, ['the file must be an object']);
  });

  it('gives one Idempotency-Key per step and resolved request, whatever the key order', () => {
    const key = idempotencyKeyOf('customer', { method: 'POST', path: '/customers', body: { a: 1, b: 2 } });
    assert.equal(key, idempotencyKeyOf('customer', { method: 'POST', path: '/customers', body: { b: 2, a: 1 } }));
    assert.notEqual(key, idempotencyKeyOf('other', { method: 'POST', path: '/customers', body: { a: 1, b: 2 } }));
    assert.notEqual(key, idempotencyKeyOf('customer', { method: 'POST', path: '/customers', body: { a: 1, b: 3 } }));
    assert.ok(key.length <= 255, 'within the header limit');
  });
});
