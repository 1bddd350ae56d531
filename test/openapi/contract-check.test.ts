// `payouts contract-check --against FILE`: the real CLI comparing the served document with the newest public
// contract (read where it lies, never copied into the project), and with itself. The differences asserted
// were each checked by hand in both documents.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareDocuments, type Drift } from '../../src/cli/openapi-diff.ts';
import { useServer } from '../helpers/harness.ts';
import { after, describe, it } from '../helpers/node-test.ts';
import { runCli, runCliOk } from '../helpers/processes.ts';

const REFERENCE = '/work/shared/reference/grid-openapi-2026-08.yaml';
/** The in-process build and a 1 MB YAML file: slow on a loaded machine, never a wait on anything else. */
const CLI_TIMEOUT_MS = 240_000;
const env = { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent' };

describe('payouts contract-check', () => {
  const server = useServer();
  const folder = mkdtempSync(join(tmpdir(), 'payouts-contract-check-'));
  after(() => rmSync(folder, { recursive: true, force: true }));

  it('lists, per operation, what the newest public contract has that the served document has not', {
    skip: !existsSync(REFERENCE) && `${REFERENCE} is not on this machine`,
  }, async () => {
    const { stdout } = await runCliOk(['contract-check', '--against', REFERENCE, '--json'], env, CLI_TIMEOUT_MS);
    const rows = JSON.parse(stdout) as Drift[];
    const find = (operation: string, where: string, field: string) =>
      rows.filter((r) => r.operation === operation && r.where === where && r.field === field);
    // An operation only the other has.
    assert.deepEqual(find('POST /stablecoin-provider-accounts', 'operation', ''), [
      {
        operation: 'POST /stablecoin-provider-accounts',
        where: 'operation',
        field: '',
        change: 'added',
        served: '',
        other: 'present',
      },
    ]);
    // A query parameter added: internal accounts filtered by type.
    assert.deepEqual(
      find('GET /platform/internal-accounts', 'parameter', 'query type').map((r) => [r.change, r.other]),
      [['added', 'string optional']],
    );
    // A response enum widened: the internal account's status.
    assert.deepEqual(
      find('GET /platform/internal-accounts', 'response 200', 'data[].status').map((r) => [
        r.change,
        r.served,
        r.other,
      ]),
      [['enum', 'ACTIVE', 'ACTIVE, CLOSED, FAILED, FROZEN, PENDING']],
    );
    // A response enum narrowed: the served document has one more destination type.
    assert.deepEqual(
      find('GET /transactions', 'response 200', 'data[].destination.destinationType').map((r) => r.change),
      ['enum'],
    );
    // Header names are compared without case: the quote's Idempotency-Key is one header in both.
    assert.deepEqual(
      rows.filter((r) => r.operation === 'POST /quotes' && r.field.startsWith('header ')),
      [],
    );
    // Rows are grouped by operation: each operation's rows are together.
    const order = rows.map((r) => r.operation).filter((op, i, all) => op !== all[i - 1]);
    assert.equal(order.length, new Set(order).size);
  });

  it('finds no difference between the served document and itself, as a person reads it', async () => {
    const answer = await fetch(`${server.baseUrl}/2025-10-13/openapi.json`);
    const document = (await answer.json()) as unknown;
    assert.deepEqual(compareDocuments(document, document), []);
    const file = join(folder, 'served.json');
    writeFileSync(file, JSON.stringify(document));
    const { stdout } = await runCliOk(['contract-check', '--against', file, '--url', server.baseUrl], env);
    assert.equal(stdout, `No differences: every operation matches ${file}.\n`);
  });

  it('refuses a file that is not an OpenAPI 3 document, in one line', async () => {
    const file = join(folder, 'swagger2.yaml');
    writeFileSync(file, 'swagger: "2.0"\npaths: {}\n');
    const result = await runCli(['contract-check', '--against', file, '--url', server.baseUrl], env);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /is not an OpenAPI 3\.x document \(its "openapi" field is null\)/);
    assert.equal(result.stdout, '');
  });
});
