// Every bank file is held to its official XSD, through libxml2's xmllint in streaming mode: memory stays flat
// however many payments a file holds, and the schema's own errors (with their lines) are what an operator
// reads. The schemas are the operator's (a folder of the official files, never copied into the project).
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { Iso20022Variant } from '../../domain/connector-routes.ts';

export type BankFileKind = 'pain.001' | 'pain.002' | 'camt.054' | 'camt.053';

/** The message each kind is, and the name of its XSD in the schema folder. */
export const SCHEMA_FILES = {
  'pain.001': 'pain.001.001.09.xsd',
  'pain.001/epc-sct': 'pain.001.001.09.epc-sct-2023.xsd',
  'pain.002': 'pain.002.001.10.xsd',
  'camt.054': 'camt.054.001.08.xsd',
  'camt.053': 'camt.053.001.08.xsd',
} as const;

/** The namespace of each kind's documents. */
export const NAMESPACES: Record<BankFileKind, string> = {
  'pain.001': 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.09',
  'pain.002': 'urn:iso:std:iso:20022:tech:xsd:pain.002.001.10',
  'camt.054': 'urn:iso:std:iso:20022:tech:xsd:camt.054.001.08',
  'camt.053': 'urn:iso:std:iso:20022:tech:xsd:camt.053.001.08',
};

/** The schemas a connector's folder must hold: its pain.001 variant's, and those of the answers it reads. */
export function requiredSchemas(variant: Iso20022Variant): string[] {
  return [
    variant === 'epc-sct' ? SCHEMA_FILES['pain.001/epc-sct'] : SCHEMA_FILES['pain.001'],
    SCHEMA_FILES['pain.002'],
    SCHEMA_FILES['camt.054'],
  ];
}

/** The XSD a file of `kind` is held to, in the connector's schema folder. */
export function schemaPathOf(settings: { schemas: string; variant: Iso20022Variant }, kind: BankFileKind): string {
  const name =
    kind === 'pain.001' && settings.variant === 'epc-sct' ? SCHEMA_FILES['pain.001/epc-sct'] : SCHEMA_FILES[kind];
  return join(settings.schemas, name);
}

/** The xmllint this process runs; an operator's PATH decides. */
export const XMLLINT = 'xmllint';

/** xmllint's version line (it prints it on stderr), or undefined when it cannot be run (not installed). */
export function xmllintVersion(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const run = spawnSync(XMLLINT, ['--version'], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 10_000,
  });
  if (run.error || run.status !== 0) return undefined;
  return `${run.stdout}${run.stderr}`.split('\n')[0] ?? '';
}

export interface SchemaError {
  line: number;
  message: string;
}

export type Validation = { ok: true } | { ok: false; errors: SchemaError[] };

/** Errors kept of a file: the first few are what an operator needs, and a broken file can have millions. */
const MAX_ERRORS = 20;
/** xmllint's stderr kept, at most: a bound on what one validation holds in memory. */
const MAX_STDERR_BYTES = 64 * 1024;

/** The errors of xmllint's stderr, `FILE:LINE: message` lines first; any other line with line 0. */
export function errorsOf(filePath: string, stderr: string): SchemaError[] {
  const errors: SchemaError[] = [];
  for (const raw of stderr.split('\n')) {
    const line = raw.trimEnd();
    if (!line || line === `${filePath} fails to validate` || line === `${filePath} validates`) continue;
    if (line.startsWith(`${filePath} :`) || /^\s*\^$/.test(line)) continue;
    const at = line.startsWith(`${filePath}:`) ? /^(\d+): (.*)$/.exec(line.slice(filePath.length + 1)) : null;
    const [, lineNumber, message = ''] = at ?? [];
    if (lineNumber !== undefined)
      errors.push({
        line: Number(lineNumber),
        message: message
          .replace(/\{urn:iso:std:iso:20022:tech:xsd:[^}]*\}/g, '')
          .replace(/^Schemas validity error : /, ''),
      });
    else if (errors.length === 0 || !line.startsWith('<')) errors.push({ line: 0, message: line });
    if (errors.length >= MAX_ERRORS) break;
  }
  return errors;
}

/**
 * Validates a file against an XSD: `xmllint --noout --stream --schema`. Answers the schema's errors with
 * their lines; a file that is not well-formed, or a schema that does not compile, is not valid either.
 */
export function validateFile(schemaPath: string, filePath: string): Promise<Validation> {
  return new Promise((resolve, reject) => {
    const child = spawn(XMLLINT, ['--noout', '--stream', '--schema', schemaPath, filePath], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < MAX_STDERR_BYTES) stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) return resolve({ ok: true });
      const errors = errorsOf(filePath, stderr);
      if (code === 5) errors.unshift({ line: 0, message: `the schema ${schemaPath} does not compile` });
      if (errors.length === 0) errors.push({ line: 0, message: `xmllint exited with ${code}` });
      resolve({ ok: false, errors });
    });
  });
}

/** One line for an operator: the first error with its line, and how many more. */
export function describeErrors(errors: readonly SchemaError[]): string {
  const first = errors[0];
  if (!first) return 'not valid';
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  return `${first.line > 0 ? `line ${first.line}: ` : ''}${first.message}${more}`;
}
