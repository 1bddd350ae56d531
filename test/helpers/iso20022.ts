// The official ISO 20022 schemas the bank files are held to, for tests: read where the project keeps them
// (never copied into it), and xmllint run on a file against one of them.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runCommand } from './processes.ts';

/**
 * The folder holding the official XSDs: $ISO20022_SCHEMAS, else <repo>/../shared/reference/iso20022, else
 * /work/shared/reference/iso20022. Throws when none exists: a test that needs them never skips.
 */
export function schemaDirForTests(): string {
  const repo = join(import.meta.dirname, '..', '..');
  const candidates = [
    process.env.ISO20022_SCHEMAS,
    join(repo, '..', 'shared', 'reference', 'iso20022'),
    '/work/shared/reference/iso20022',
  ].filter((dir): dir is string => Boolean(dir));
  const found = candidates.find((dir) => existsSync(join(dir, 'pain.001.001.09.xsd')));
  if (!found) throw new Error(`no ISO 20022 schema folder: looked in ${candidates.join(', ')}`);
  return found;
}

/** xmllint's word on `file` against `<schemaDir>/<xsd>`: whether it validates, and what it said. */
export async function xmllintValidates(xsd: string, file: string): Promise<{ ok: boolean; output: string }> {
  const result = await runCommand(
    'xmllint',
    ['--noout', '--stream', '--schema', join(schemaDirForTests(), xsd), file],
    { env: process.env, timeoutMs: 120_000 },
  );
  return { ok: result.code === 0, output: `${result.stdout}${result.stderr}` };
}
