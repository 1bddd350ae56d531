/**
 * The served OpenAPI document is one a generator can use: valid OpenAPI 3.1, every resource, request
 * body and the error body a named component referenced with `$ref`, every operation with a summary, a
 * description and an example, and every example valid against the schema it illustrates.
 */
import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { API, useServer } from '../helpers/harness.ts';
import { operationsOf } from './operations.ts';

type Node = Record<string, any>;

const RESOURCES = [
  'Transaction',
  'Quote',
  'ExternalAccount',
  'Customer',
  'InternalAccount',
  'BeneficialOwner',
  'Document',
  'Verification',
  'Invitation',
  'PlatformConfig',
  'WebhookEvent',
  'ApiToken',
  'ExchangeRate',
  'UmaProvider',
  'Error',
  'TransactionPage',
  'QuoteCreateRequest',
  'CustomerCreateRequest',
  'CustomerUpdateRequest',
  'ExternalAccountCreateRequest',
  'TransferOutRequest',
];

describe('the OpenAPI document', () => {
  let doc: Node;
  const server = useServer();
  before(async () => {
    const res = await fetch(`${server.baseUrl}${API}/openapi.json`);
    assert.equal(res.status, 200, 'the document is served without credentials');
    doc = (await res.json()) as Node;
  });

  it('is valid OpenAPI 3.1', async () => {
    assert.equal(doc.openapi, '3.1.0', 'openapi version');
    const result = await new Validator().validate(structuredClone(doc));
    assert.equal(result.valid, true, `validation errors: ${JSON.stringify(result.errors, null, 1)?.slice(0, 3000)}`);
  });

  it('names every resource, request body and the error body as a component', () => {
    const names = Object.keys(doc.components.schemas);
    const missing = RESOURCES.filter((n) => !names.includes(n));
    assert.deepEqual(missing, [], `component schemas missing; present: ${names.join(', ')}`);
    assert.doesNotMatch(JSON.stringify(doc), /x-component-name/, 'the naming keyword never reaches the document');
  });

  it('references a named schema from every JSON request body and every JSON response', () => {
    const inline: string[] = [];
    for (const { name, op } of operationsOf(doc)) {
      const body = op.requestBody?.content?.['application/json'];
      if (body && !body.schema?.$ref) inline.push(`${name} request body`);
      for (const [status, response] of Object.entries<Node>(op.responses)) {
        const media = response.content?.['application/json'];
        if (media && !media.schema?.$ref) inline.push(`${name} ${status}`);
      }
    }
    assert.deepEqual(inline, [], 'inline schemas where a named one belongs');
  });

  it('gives every operation a summary, a description and an example', () => {
    const lacking: string[] = [];
    for (const { name, op } of operationsOf(doc)) {
      if (!op.summary) lacking.push(`${name}: summary`);
      if (!op.description || op.description === op.summary) lacking.push(`${name}: description`);
      const body = op.requestBody?.content?.['application/json'];
      if (body && body.example === undefined) lacking.push(`${name}: request example`);
      const success = Object.entries<Node>(op.responses).filter(([s, r]) => s.startsWith('2') && r.content);
      for (const [status, response] of success) {
        const media = Object.values<Node>(response.content)[0]!;
        const binary = media.schema?.format === 'binary';
        if (!binary && media.example === undefined) lacking.push(`${name}: ${status} example`);
      }
      const any = JSON.stringify(op).includes('"example"');
      if (!any) lacking.push(`${name}: any example`);
    }
    assert.deepEqual(lacking, [], 'operations lacking documentation');
  });

  it('has examples that are valid against their schemas', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats.default(ajv);
    ajv.addSchema({ ...doc, $id: 'doc.json' });
    const invalid: string[] = [];
    const check = (where: string, schema: Node, example: unknown) => {
      if (!schema.$ref) return void invalid.push(`${where}: an inline schema`);
      const validate = ajv.compile({ $ref: `doc.json${schema.$ref}` });
      if (!validate(example)) invalid.push(`${where}: ${ajv.errorsText(validate.errors)}`);
    };
    for (const { name, op } of operationsOf(doc)) {
      const body = op.requestBody?.content?.['application/json'];
      if (body?.example !== undefined) check(`${name} request`, body.schema, body.example);
      for (const [status, response] of Object.entries<Node>(op.responses)) {
        const media = response.content?.['application/json'];
        if (media?.example !== undefined) check(`${name} ${status}`, media.schema, media.example);
      }
    }
    for (const [name, schema] of Object.entries<Node>(doc.components.schemas))
      for (const example of schema.examples ?? []) check(name, { $ref: `#/components/schemas/${name}` }, example);
    assert.deepEqual(invalid, [], 'examples that break their schema');
  });
});
