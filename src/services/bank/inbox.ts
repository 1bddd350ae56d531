// The connector's inbox, where the bank (or whatever fetches its files) drops pain.002 and camt.054 files: a
// worker chore ingests each file that has stopped changing, then moves it out of the way: applied (or
// already applied) to inbox/processed/, refused to inbox/refused/ with <name>.error.txt saying why. A file
// is moved only after its transaction committed, so a crash between the two leaves it in the inbox, where
// the next pass finds it applied by its hash and moves it: applied once, never lost.
import { readdir, rename, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import type { Iso20022ConnectorSettings } from '../../domain/connector-routes.ts';
import { makeFoldersAsync } from '../../store/folders.ts';
import { wallNowMs } from '../../context.ts';
import { type IngestDeps, type IngestOutcome, ingestFile } from './ingest.ts';

/** A file changed this recently may still be arriving (an SFTP upload): it waits for the next pass. */
export const SETTLED_AFTER_MS = 1_000;
/** Files ingested per pass, at most: a bound on one pass, the rest wait for the next. */
const FILES_PER_PASS = 100;

/** Names in the inbox that are not the bank's files: hidden files, and ones still being written. */
const NOT_A_FILE_YET = /^\.|\.(tmp|part|partial|filepart)$/i;

/** Where a file goes: `folder/name`, or `name` with its hash's start when a file of that name is there. */
function placeIn(folder: string, name: string, sha: string): string {
  const plain = join(folder, name);
  if (!existsSync(plain)) return plain;
  const ext = extname(name);
  return join(folder, `${basename(name, ext)}.${sha.slice(0, 12)}${ext}`);
}

/** Moves a file out of the inbox once it is taken; one already moved (by another process) is let be. */
async function moveOut(settings: Iso20022ConnectorSettings, path: string, outcome: IngestOutcome): Promise<void> {
  const refused = outcome.outcome === 'REFUSED';
  const folder = join(settings.inbox, refused ? 'refused' : 'processed');
  await makeFoldersAsync(folder);
  const target = placeIn(folder, basename(path), outcome.bankFileId.replace(/\W/g, ''));
  try {
    await rename(path, target);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (outcome.outcome === 'REFUSED') await writeFile(`${target}.error.txt`, `${outcome.error}\n`);
}

/** The inbox's files that have stopped changing, oldest name first. */
async function settledFiles(settings: Iso20022ConnectorSettings, nowMs: number): Promise<string[]> {
  const entries = await readdir(settings.inbox, { withFileTypes: true }).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  });
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!entry.isFile() || NOT_A_FILE_YET.test(entry.name)) continue;
    const path = join(settings.inbox, entry.name);
    const info = await stat(path).catch(() => undefined);
    if (info && nowMs - info.mtimeMs >= SETTLED_AFTER_MS) files.push(path);
    if (files.length >= FILES_PER_PASS) break;
  }
  return files;
}

/** One pass over the inbox: each settled file ingested and moved out. Answers what became of each. */
export async function ingestInbox(deps: IngestDeps, settings: Iso20022ConnectorSettings): Promise<IngestOutcome[]> {
  const outcomes: IngestOutcome[] = [];
  for (const path of await settledFiles(settings, wallNowMs(deps.ctx))) {
    const outcome = await ingestFile(deps, settings, path);
    await moveOut(settings, path, outcome);
    outcomes.push(outcome);
  }
  return outcomes;
}
