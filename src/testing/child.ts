// The test API's child-process mode: the package's own `payouts serve` in a process of its own, told over an
// IPC channel which port it bound (PORT=0), and stopped like an operator would (SIGTERM, then SIGKILL).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ServeReady } from '../cli/commands/serve.ts';

const STOP_GRACE_MS = 5_000;
const OUTPUT_LIMIT = 64 * 1024;

/**
 * How to run `payouts serve` from here. Built (dist/testing/child.js in an installed package): its
 * bin/payouts.mjs on plain Node. From the sources (src/testing/child.ts, the repository's tests and bench):
 * src/main.ts through tsx, as everything in the repository runs, so an edit needs no rebuild.
 */
function serveCommand(): { args: string[]; cwd: string } {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  if (import.meta.url.endsWith('.ts')) {
    return { args: ['--import', 'tsx', fileURLToPath(new URL('../main.ts', import.meta.url)), 'serve'], cwd: root };
  }
  return { args: [fileURLToPath(new URL('../../bin/payouts.mjs', import.meta.url)), 'serve'], cwd: root };
}

export function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** SIGTERM (a graceful stop: requests finish, the database closes), then SIGKILL after a grace period. */
export function stopChild(child: ChildProcess): Promise<void> {
  if (exited(child)) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * The URL a `payouts serve` started with an IPC channel says it bound (PORT=0 lets the kernel pick the port,
 * so no other process can take it between a choice and the bind). Rejects if the child exits or stays
 * silent for `timeoutMs`. The channel is unref'd once the message is in, so it keeps no parent alive.
 */
export function listeningUrlOf(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`payouts serve did not listen within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (message: Partial<ServeReady>) => {
      if (message.event === 'payouts:listening' && typeof message.url === 'string') done(message.url);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      done(new Error(`payouts serve exited (${signal ?? code}) before it listened`));
    const onError = (err: Error) => done(err);
    /** The URL, or why there is none. */
    function done(outcome: string | Error) {
      clearTimeout(timer);
      child.off('message', onMessage).off('exit', onExit).off('error', onError);
      if (outcome instanceof Error) return reject(outcome);
      child.channel?.unref();
      resolve(outcome);
    }
    child.on('message', onMessage).once('exit', onExit).once('error', onError);
  });
}

/** Starts `payouts serve` with `env` and resolves once it listens; a child that exits or hangs first is a failure. */
export async function startChildServer(
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ serverUrl: string; stop(): Promise<void> }> {
  const { args, cwd } = serveCommand();
  const child = spawn(process.execPath, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) {
    stream?.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-OUTPUT_LIMIT);
    });
  }
  try {
    const serverUrl = await listeningUrlOf(child, timeoutMs);
    return { serverUrl, stop: () => stopChild(child) };
  } catch (err) {
    await stopChild(child);
    throw new Error(`startSandbox: ${(err as Error).message}\n--- its output ---\n${output}`, { cause: err });
  }
}
