// Where tests read the official ISO 20022 schemas: $ISO20022_SCHEMAS, else the shared reference folder next to
// the repository, else the machine's. Never copied into the project, and never skipped: no folder is a failure.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand } from './processes.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The folder holding pain.001.001.09.xsd and the rest; throws when none is found. */
export function schemaDirForTests(): string {
  const candidates = [
    process.env.ISO20022_SCHEMAS,
    join(REPO, '..', 'shared', 'reference', 'iso20022'),
    '/work/shared/reference/iso20022',
  ].filter((dir): dir is string => Boolean(dir));
  const found = candidates.find((dir) => existsSync(join(dir, 'pain.001.001.09.xsd')));
  if (!found) throw new Error(`no ISO 20022 schema folder (set ISO20022_SCHEMAS); looked in ${candidates.join(', ')}`);
  return found;
}

/** xmllint's own word on `file` against `<schemas>/<xsd>` (not the service's validateFile): valid, and what it said. */
export async function xmllintValidates(xsd: string, file: string): Promise<{ ok: boolean; output: string }> {
  const result = await runCommand(
    'xmllint',
    ['--noout', '--stream', '--schema', join(schemaDirForTests(), xsd), file],
    {
      env: process.env,
      timeoutMs: 120_000,
    },
  );
  return { ok: result.code === 0, output: `${result.stdout}${result.stderr}` };
}
