// Folders made with their missing parents, one level at a time. Node's own `mkdir(path, { recursive: true })`
// never returns where the kernel answers ENOENT for a folder whose parent exists (`/proc/nope`): it keeps
// retrying the same step. So nothing in the service calls it (the tidy test holds that): a bad DATA_DIR is
// an error naming the path, never a start that hangs with no output.
import { existsSync, mkdirSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

const alreadyMade = (err: unknown) => (err as NodeJS.ErrnoException).code === 'EEXIST';

/** Creates `path` and its missing parents; throws the first error the file system gives (ENOENT, EACCES…). */
export function makeFolders(path: string): void {
  const missing: string[] = [];
  for (let at = resolve(path); !existsSync(at) && dirname(at) !== at; at = dirname(at)) missing.push(at);
  for (const folder of missing.reverse()) {
    try {
      mkdirSync(folder);
    } catch (err) {
      if (!alreadyMade(err)) throw err;
    }
  }
}

/** makeFolders without blocking the event loop, for folders made while the server serves. */
export async function makeFoldersAsync(path: string): Promise<void> {
  const exists = (at: string) =>
    stat(at).then(
      () => true,
      () => false,
    );
  const missing: string[] = [];
  for (let at = resolve(path); !(await exists(at)) && dirname(at) !== at; at = dirname(at)) missing.push(at);
  for (const folder of missing.reverse()) {
    await mkdir(folder).catch((err: unknown) => {
      if (!alreadyMade(err)) throw err;
    });
  }
}
