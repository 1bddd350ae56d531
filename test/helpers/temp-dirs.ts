// Folders a test file writes to (data folders, key files, logs), removed when its tests end: the suite
// leaves nothing of its own behind in the system's temporary folder, however often it runs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from './node-test.ts';

const made: string[] = [];

function removeAll(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

// The root `after` runs when this file's tests end; the exit hook covers a file torn down before its hooks.
after(removeAll);
process.once('exit', removeAll);

/** A new empty folder under the system's temporary folder, named `payouts-<what>-…`, removed after the file. */
export function tempDir(what: string): string {
  const dir = mkdtempSync(join(tmpdir(), `payouts-${what}-`));
  made.push(dir);
  return dir;
}
