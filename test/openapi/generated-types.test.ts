/**
 * A generator makes named types of the served document: openapi-typescript (its programmatic API) turns
 * the document, fetched from the running server over HTTP, into TypeScript, and the TypeScript compiler
 * checks a program that uses `components["schemas"]["Transaction"]` and the other names. A line that
 * must not compile (`@ts-expect-error`) proves the types are real ones, not `unknown`.
 */
import { after, before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { register } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API, useServer } from '../helpers/harness.ts';

register('./typescript5-hook.mjs', import.meta.url);
const { default: openapiTS, astToString } = await import('openapi-typescript');
const { default: ts } = await import('typescript5');

const USES = `
import type { components } from './api.ts';
type Schemas = components['schemas'];

const transaction: Schemas['Transaction'] = {
  id: 'Transaction:1',
  status: 'COMPLETED',
  type: 'OUTGOING',
  direction: 'DEBIT',
  source: { sourceType: 'ACCOUNT', accountId: 'InternalAccount:1' },
  destination: { destinationType: 'ACCOUNT', accountId: 'ExternalAccount:1' },
  sentAmount: { amount: 100, currency: { code: 'USD', name: 'US Dollar', symbol: '$', decimals: 2 } },
  receivedAmount: { amount: 100, currency: { code: 'USD', name: 'US Dollar', symbol: '$', decimals: 2 } },
  fees: 0,
  createdAt: '2025-10-13T09:30:00.000Z',
  updatedAt: '2025-10-13T09:30:00.000Z',
};
const quoteAmount: Schemas['Quote']['totalSendingAmount'] = 10000;
const accountType: Schemas['ExternalAccount']['accountInfo']['accountType'] = 'USD_ACCOUNT';
const error: Schemas['Error'] = { status: 400, code: 'INVALID_INPUT', message: 'amount must be >= 1' };
const request: Schemas['QuoteCreateRequest']['lockedCurrencySide'] = 'SENDING';
const page: Schemas['TransactionPage'] = { data: [transaction], hasMore: false, totalCount: 1 };
// @ts-expect-error a status the service never answers is not a Transaction status
const wrong: Schemas['Transaction']['status'] = 'TELEPORTED';
export const used = [quoteAmount, accountType, error, request, page, wrong];
`;

describe('types generated from the served OpenAPI document', () => {
  let dir: string;
  const server = useServer();
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'payouts-openapi-types-'));
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('names Transaction, Quote, ExternalAccount and Error, and compiles', async () => {
    const res = await fetch(`${server.baseUrl}${API}/openapi.json`);
    assert.equal(res.status, 200, 'the document is served');
    const source = astToString(await openapiTS(await res.text()));
    for (const name of ['Transaction', 'Quote', 'ExternalAccount', 'Customer', 'InternalAccount', 'Error'])
      assert.match(source, new RegExp(`^ {8}${name}: \\{`, 'm'), `components.schemas.${name} is declared`);

    writeFileSync(join(dir, 'api.ts'), source);
    writeFileSync(join(dir, 'uses.ts'), USES);
    const program = ts.createProgram([join(dir, 'uses.ts')], {
      strict: true,
      noEmit: true,
      allowImportingTsExtensions: true,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      target: ts.ScriptTarget.ES2022,
      types: [],
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    assert.deepEqual(problems, [], 'the generated types and a program using them compile');
  });
});
