// `payouts contract-check --against FILE`: the drift report between the OpenAPI document this service serves
// and another OpenAPI 3.x document (YAML or JSON), such as a newer public contract: per operation, what a
// client written against the other one would find different here (cli/openapi-diff.ts compares).
//
// The served document is this build's, made in-process on a throw-away embedded database (nothing of the
// user's is read or written), or a running server's with --url.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_VERSION } from '../../http/http.ts';
import { stringOption, type CliCommand, type CliInput } from '../command.ts';
import { compareDocuments, notOpenApi3, type Drift } from '../openapi-diff.ts';

/** The other document: JSON when it parses as JSON, else YAML. */
async function readDocument(input: CliInput, file: string): Promise<unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    input.fail(`--against ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const { parse } = await import('yaml');
    try {
      value = parse(text, { maxAliasCount: -1 });
    } catch (err) {
      input.fail(`--against ${file} is neither JSON nor YAML: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  const problem = notOpenApi3(value);
  if (problem) input.fail(`--against ${file} ${problem}`);
  return value;
}

/** This build's document, from the app itself on an embedded database made for the purpose and removed. */
async function builtDocument(): Promise<unknown> {
  const dataDir = mkdtempSync(join(tmpdir(), 'payouts-contract-'));
  try {
    const [{ createApp }, { loadConfig }] = await Promise.all([import('../../app.ts'), import('../../config.ts')]);
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', RUN_WORKERS: 'false' });
    const app = await createApp(config);
    try {
      await app.http.ready();
      return app.http.swagger();
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A running server's document (GET /<version>/openapi.json needs no credentials). */
async function servedDocument(input: CliInput, url: string): Promise<unknown> {
  const address = `${url.replace(/\/+$/, '')}/${API_VERSION}/openapi.json`;
  let answer: Response;
  try {
    answer = await fetch(address, { headers: { accept: 'application/json' } });
  } catch (err) {
    input.fail(`cannot reach ${address}: ${(err as Error).message}`);
  }
  if (!answer.ok) input.fail(`${address} answered ${answer.status}`);
  return answer.json();
}

/** Columns padded to their widest cell; a long SERVED or OTHER (an enum) is cut, --json has it whole. */
function renderTable(head: string[], rows: string[][]): string {
  const cut = (cell: string) => (cell.length > 60 ? `${cell.slice(0, 57)}...` : cell);
  const all = [head, ...rows.map((r) => r.map(cut))];
  const widths = head.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all
    .map(
      (r) =>
        `${r
          .map((c, i) => c.padEnd(widths[i] ?? 0))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('');
}

/** The report a person reads: one block per operation, one line per difference. */
function formatDrift(rows: Drift[], against: string): string {
  if (rows.length === 0) return `No differences: every operation matches ${against}.\n`;
  const operations = new Set(rows.map((r) => r.operation)).size;
  const table = renderTable(
    ['OPERATION', 'WHERE', 'FIELD', 'CHANGE', 'SERVED', 'OTHER'],
    rows.map((r, i) => [
      i > 0 && rows[i - 1]?.operation === r.operation ? '' : r.operation,
      r.where,
      r.field || '-',
      r.change,
      r.served || '-',
      r.other || '-',
    ]),
  );
  const legend =
    `${rows.length} difference(s) in ${operations} operation(s); "added" is only in ${against}, ` +
    '"removed" only in the served document.\n';
  return `${table}${legend}`;
}

async function runContractCheck(input: CliInput): Promise<number> {
  const against = stringOption(input.options, 'against') ?? input.fail('--against FILE is required');
  const url = stringOption(input.options, 'url');
  const other = await readDocument(input, against);
  const served = url === undefined ? await builtDocument() : await servedDocument(input, url);
  const rows = compareDocuments(served, other);
  if (input.options.json === true) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  else process.stdout.write(formatDrift(rows, against));
  return 0;
}

export const contractCheckCommand: CliCommand = {
  path: ['contract-check'],
  summary:
    'compare the served OpenAPI document with another (--against FILE, YAML or JSON): per operation, what differs',
  options: [
    { flags: '--against <file>', description: 'the other OpenAPI 3.x document, YAML or JSON', required: true },
    {
      flags: '--url <url>',
      description: "a running server whose document to compare (default: this build's, made in-process)",
    },
    { flags: '--json', description: 'print the differences as a JSON list' },
  ],
  database: 'none',
  writes: false,
  run: runContractCheck,
};
