import type { Config } from '../config.ts';
import type { openServices } from '../open-services.ts';

export type Opened = Awaited<ReturnType<typeof openServices>>;

/** Opens the database and the services for one command, and closes them whatever happens. */
export async function withServices<T>(config: Config, work: (opened: Opened) => Promise<T>): Promise<T> {
  // Loaded by the command that runs, not for every command's --help (test/foundation/cli-start.test.ts).
  const { openServices } = await import('../open-services.ts');
  const opened = await openServices(config);
  try {
    return await work(opened);
  } finally {
    await opened.store.close();
  }
}

/** Prints a value as one JSON line (--json) or indented for a person. */
export function printJson(value: unknown, oneLine: boolean): void {
  process.stdout.write(`${oneLine ? JSON.stringify(value) : JSON.stringify(value, null, 2)}\n`);
}
