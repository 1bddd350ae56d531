/**
 * The adapter contract (src/rails/http/adapter-contract.ts) is a document an adapter's author can generate
 * from and trust: valid OpenAPI 3.1, every request and answer a named schema, closed objects, every request
 * signed, and every example valid against the schema it illustrates.
 */
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ADAPTER_CONTRACT } from '../../src/rails/http/adapter-contract.ts';
import { describe, it } from '../helpers/node-test.ts';
import { operationsOf } from '../openapi/operations.ts';

type Node = Record<string, any>;
const doc = structuredClone(ADAPTER_CONTRACT) as Node;
const SIGNING = ['WebhookId', 'WebhookTimestamp', 'WebhookSignature'].map((n) => `#/components/parameters/${n}`);

describe('the adapter contract', () => {
  it('is valid OpenAPI 3.1', async () => {
    assert.equal(doc.openapi, '3.1.0', 'openapi version');
    const result = await new Validator().validate(structuredClone(doc));
    assert.equal(result.valid, true, `validation errors: ${JSON.stringify(result.errors, null, 1)?.slice(0, 3000)}`);
  });

  it('has the three adapter endpoints and the service callback, each signed', () => {
    const names = operationsOf(doc).map((o) => o.name);
    assert.deepEqual(
      names.sort(),
      ['GET /payouts/{id}', 'POST /connectors/{name}/events', 'POST /payouts', 'POST /payouts/{id}/cancel'],
      'the operations',
    );
    for (const { name, op } of operationsOf(doc)) {
      const refs = new Set((op.parameters as Node[]).map((p) => p.$ref));
      for (const signing of SIGNING) assert.ok(refs.has(signing), `${name} takes ${signing}`);
      assert.ok(op.responses['401'], `${name} answers 401 to a bad signature`);
    }
    for (const name of SIGNING) {
      const parameter = doc.components.parameters[name.split('/').pop() ?? ''];
      assert.equal(parameter.in, 'header', `${name} is a header`);
      assert.equal(parameter.required, true, `${name} is required`);
    }
    assert.ok(doc.paths['/connectors/{name}/events'].servers, 'the callback names the service as its server');
  });

  it('references a named schema from every body, and closes every object but the API account details', () => {
    const inline: string[] = [];
    for (const { name, op } of operationsOf(doc)) {
      const body = op.requestBody?.content?.['application/json'];
      if (body && !body.schema?.$ref) inline.push(`${name} request body`);
      for (const [status, response] of Object.entries<Node>(op.responses)) {
        const media = response.content?.['application/json'];
        if (!media?.schema?.$ref) inline.push(`${name} ${status}`);
      }
    }
    assert.deepEqual(inline, [], 'inline or missing schemas');
    const open = Object.entries<Node>(doc.components.schemas)
      .filter(([, schema]) => schema.type === 'object' && schema.additionalProperties !== false)
      .map(([name]) => name);
    assert.deepEqual(open, ['AccountInfo'], 'objects that accept unknown properties');
  });

  it('has examples that are valid against their schemas', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ ...doc, $id: 'contract.json' });
    const invalid: string[] = [];
    let checked = 0;
    for (const { name, op } of operationsOf(doc)) {
      const media = [
        [`${name} request`, op.requestBody?.content?.['application/json']],
        ...Object.entries<Node>(op.responses).map(([status, r]) => [
          `${name} ${status}`,
          r.content?.['application/json'],
        ]),
      ] as Array<[string, Node | undefined]>;
      for (const [where, content] of media) {
        if (content?.example === undefined) continue;
        const validate = ajv.compile({ $ref: `contract.json${content.schema.$ref}` });
        checked++;
        if (!validate(content.example)) invalid.push(`${where}: ${ajv.errorsText(validate.errors)}`);
      }
    }
    assert.deepEqual(invalid, [], 'examples that break their schema');
    assert.ok(checked >= 14, `every request and answer has an example (${checked} checked)`);
  });

  it('refuses what the protocol refuses: an extra field, a fractional amount, an event naming no payout', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ ...doc, $id: 'contract.json' });
    const instruction = ajv.compile({ $ref: 'contract.json#/components/schemas/PayoutInstruction' });
    const example = doc.paths['/payouts'].post.requestBody.content['application/json'].example as Node;
    assert.equal(instruction(example), true, 'the example passes');
    assert.equal(instruction({ ...example, amount: 1.5 }), false, 'a fractional amount fails');
    assert.equal(instruction({ ...example, amount: 0 }), false, 'a zero amount fails');
    assert.equal(instruction({ ...example, extra: 1 }), false, 'an unknown field fails');
    const event = ajv.compile({ $ref: 'contract.json#/components/schemas/RailEvent' });
    const occurredAt = '2026-12-02T01:02:03.000Z';
    assert.equal(event({ railReference: 'r1', status: 'RETURNED', occurredAt }), true, 'named by railReference');
    assert.equal(event({ status: 'COMPLETED', occurredAt }), false, 'an event naming no payout fails');
    assert.equal(event({ id: 'T', status: 'FAILED', failureReason: 'NOPE', occurredAt }), false, 'a private reason');
  });
});
