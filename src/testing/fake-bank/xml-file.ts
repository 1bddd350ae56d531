// A file the fake bank hands over, written as a real bank's host-to-host drop is: into <inbox>/.tmp first,
// fsynced, then renamed into the inbox, so the service never reads half a file. Text is buffered and written
// in large pieces: an answer to 100,000 payments is never held whole.
import { readdirSync, renameSync, rmSync } from 'node:fs';
import { open, rename, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { makeFolders } from '../../store/folders.ts';

const FLUSH_AT = 256 * 1024;

/** Text for an XML element's content or attribute: the five characters XML gives meaning to, escaped. */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The folder a file waits in before it is renamed into the inbox (same file system: rename is atomic). */
export function stagingDir(inbox: string): string {
  return join(inbox, '.tmp');
}

export class StagedFile {
  private parts: string[] = [];
  private size = 0;

  private constructor(
    private readonly handle: FileHandle,
    private readonly partPath: string,
    readonly name: string,
    private readonly inbox: string,
  ) {}

  static async create(inbox: string, name: string): Promise<StagedFile> {
    const dir = stagingDir(inbox);
    makeFolders(dir);
    const partPath = join(dir, `${name}.part`);
    return new StagedFile(await open(partPath, 'w'), partPath, name, inbox);
  }

  async write(text: string): Promise<void> {
    this.parts.push(text);
    this.size += text.length;
    if (this.size >= FLUSH_AT) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.parts.length === 0) return;
    const chunk = this.parts.join('');
    this.parts = [];
    this.size = 0;
    await this.handle.write(chunk);
  }

  /** Flushed, fsynced and marked ready (`.ready`): it survives a crash, and goes in with publishReady. */
  async finish(): Promise<void> {
    await this.flush();
    await this.handle.sync();
    await this.handle.close();
    await rename(this.partPath, join(stagingDir(this.inbox), `${this.name}.ready`));
  }

  async abandon(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    rmSync(this.partPath, { force: true });
  }
}

/** Every ready file into the inbox, in name order (a crash between finish and here is caught up next time). */
export async function publishReady(inbox: string): Promise<string[]> {
  const dir = stagingDir(inbox);
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  const published: string[] = [];
  for (const entry of names) {
    if (entry.endsWith('.part')) rmSync(join(dir, entry), { force: true });
    if (!entry.endsWith('.ready')) continue;
    const name = entry.slice(0, -'.ready'.length);
    renameSync(join(dir, entry), join(inbox, name));
    published.push(name);
  }
  if (published.length > 0) await syncDir(inbox);
  return published;
}

/** The rename is durable once the folder itself is fsynced. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
