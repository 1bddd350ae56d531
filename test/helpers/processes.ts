// Every OS process a test starts goes through this file, so none can outlive its test file or hang it:
// each one is bounded in time, stopped on every path (SIGTERM, then SIGKILL after a grace period), and
// its output is kept for the failure message.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { exited, listeningUrlOf, stopChild } from '../../src/testing/child.ts';
import { after } from './node-test.ts';
import { waitFor } from './wait.ts';

/** How long a CLI command or a server start may take on a loaded 2-core machine before it is a failure. */
export const PROCESS_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;
const OUTPUT_LIMIT = 64 * 1024;

const running = new Set<ChildProcess>();

// Belt and braces: a test that forgot stop() still leaves no orphan. The root `after` runs when this
// file's tests end; the exit hook covers a test file that is torn down before its hooks run.
after(() => Promise.all([...running].map((child) => stopChild(child))));
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** The repository's tests run the TypeScript sources through tsx; only the package test runs dist/. */
const SOURCE_CLI = ['--import', 'tsx', 'src/main.ts'];

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `payouts ARGS…` to the end and returns its exit code and output; never throws for a non-zero
 * exit (tests assert on the code). A command still running after `timeoutMs` is killed and reported.
 */
export function runCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = PROCESS_TIMEOUT_MS): Promise<CliResult> {
  return runCommand(process.execPath, [...SOURCE_CLI, ...args], { env, timeoutMs, label: `payouts ${args.join(' ')}` });
}

export interface CommandOptions {
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
  cwd?: string;
  /** How the command is named in a failure message. */
  label?: string;
}

/**
 * Runs any program (npm, a packed CLI) to the end, bounded like runCli: killed and reported after
 * `timeoutMs`; a non-zero exit is returned, not thrown.
 */
export function runCommand(file: string, args: string[], options: CommandOptions): Promise<CliResult> {
  const { env, timeoutMs = PROCESS_TIMEOUT_MS, cwd, label = `${file} ${args.join(' ')}` } = options;
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { env, cwd, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const killed = error && 'killed' in error && error.killed;
        if (killed)
          return reject(
            new Error(`${label} did not finish within ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`),
          );
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Like runCli, but a non-zero exit is a failure whose message carries the command's output. */
export async function runCliOk(args: string[], env: NodeJS.ProcessEnv, timeoutMs?: number): Promise<CliResult> {
  const result = await runCli(args, env, timeoutMs);
  if (result.code !== 0)
    throw new Error(
      `payouts ${args.join(' ')} exited ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`,
    );
  return result;
}

export interface ServerProcess {
  baseUrl: string;
  port: number;
  pid: number;
  /** Everything the process wrote to stdout so far. */
  stdout(): string;
  /** stdout and stderr interleaved, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

export interface SpawnOptions {
  /**
   * Run it on a pseudo-terminal (util-linux `script`), as an operator's shell would: its stdout is a TTY.
   * Its output then comes back as the terminal showed it, stdout and stderr together.
   */
  tty?: boolean;
  /** The command that serves (default: the sources' `payouts serve` through tsx), run in `cwd`. */
  command?: string[];
  cwd?: string;
}

const quoted = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;

/**
 * Starts `payouts serve` as a real OS process and waits until /readyz answers. It binds PORT=0 and says
 * which port over an IPC channel (`payouts:listening`; `script` passes the channel on in tty mode), so no
 * other test's server can take the port between a choice and the bind and answer in its place. A process
 * that exits first, or is not ready within `timeoutMs`, is stopped and the start fails with its output.
 */
export async function spawnServer(
  env: Record<string, string>,
  timeoutMs = PROCESS_TIMEOUT_MS,
  options: SpawnOptions = {},
): Promise<ServerProcess> {
  const command = options.command ?? [process.execPath, ...SOURCE_CLI, 'serve'];
  // `script` passes SIGTERM on to the server, so stop() works the same way.
  const [file = process.execPath, ...args] = options.tty
    ? ['script', '-qfec', command.map(quoted).join(' '), '/dev/null']
    : command;
  const child = spawn(file, args, {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: '0', HOST: '127.0.0.1' },
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  // Nothing about a child may keep this test file alive: the hooks above stop it.
  child.unref();
  let stdout = '';
  let output = '';
  const keep = (text: string, into: string) => (into + text).slice(-OUTPUT_LIMIT);
  for (const [stream, isStdout] of [
    [child.stdout, true],
    [child.stderr, false],
  ] as const) {
    (stream as unknown as { unref?: () => void } | null)?.unref?.();
    stream?.on('data', (chunk: Buffer) => {
      if (isStdout) stdout = keep(chunk.toString(), stdout);
      output = keep(chunk.toString(), output);
    });
  }
  try {
    const started = performance.now();
    const baseUrl = await listeningUrlOf(child, timeoutMs);
    await waitFor(
      async () => {
        if (exited(child))
          throw new Error(`payouts serve exited with ${child.exitCode ?? child.signalCode} before it was ready`);
        return (await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.ok === true;
      },
      `payouts serve at ${baseUrl} to answer /readyz`,
      Math.max(1, timeoutMs - (performance.now() - started)),
    );
    return {
      baseUrl,
      port: Number(new URL(baseUrl).port),
      pid: child.pid ?? 0,
      stdout: () => stdout,
      output: () => output,
      stop: () => stopChild(child),
    };
  } catch (error) {
    await stopChild(child);
    throw new Error(`${(error as Error).message}\n--- its output ---\n${output}`, { cause: error });
  }
}

/** A helper process a test needs running (a connection pooler), stopped like any other. */
export interface Daemon {
  /** Its process id (a test may kill -9 it). */
  pid: number;
  output(): string;
  /** SIGTERM, then SIGKILL after the grace period. */
  stop(): Promise<void>;
  /** Its exit code, or the signal that ended it (SIGKILL: it did not stop when asked); null while it runs. */
  ended(): number | NodeJS.Signals | null;
}

/** Starts `file args…` in the foreground and waits until `ready()` holds (or it exits: a failure). */
export async function spawnDaemon(
  file: string,
  args: string[],
  ready: () => Promise<boolean>,
  what: string,
  timeoutMs = PROCESS_TIMEOUT_MS,
): Promise<Daemon> {
  const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  child.unref();
  let output = '';
  for (const stream of [child.stdout, child.stderr]) {
    (stream as unknown as { unref?: () => void }).unref?.();
    stream.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-OUTPUT_LIMIT);
    });
  }
  try {
    await waitFor(
      async () => {
        if (exited(child)) throw new Error(`${what} exited with ${child.exitCode ?? child.signalCode}`);
        return ready();
      },
      what,
      timeoutMs,
    );
  } catch (error) {
    await stopChild(child);
    throw new Error(`${(error as Error).message}\n--- its output ---\n${output}`, { cause: error });
  }
  return {
    pid: child.pid ?? 0,
    output: () => output,
    stop: () => stopChild(child),
    ended: () => child.exitCode ?? child.signalCode,
  };
}

/**
 * Lines for the top of a script given to runScript that starts jobs with job control on (`set -m`): each job
 * is then a process group of its own, which a signal to the script's group misses. They stop every job when
 * a command fails, and when runScript stops the script (SIGTERM: its time ran out).
 */
export const STOP_JOBS_WITH_SCRIPT = [
  'stop_jobs() { for job in $(jobs -p); do kill -- -$job 2>/dev/null; done; }',
  'trap stop_jobs ERR',
  "trap 'stop_jobs; exit 143' TERM",
].join('\n');

/**
 * Runs a bash script (a documented walkthrough) in a process group of its own, bounded like runCommand.
 * Whatever it left running in the background (`npx payouts serve &`) is the group's, and is stopped with
 * it: SIGTERM to the whole group when the script ends or runs out of time, SIGKILL after the grace period.
 */
export function runScript(script: string, options: CommandOptions): Promise<CliResult> {
  const { env, timeoutMs = PROCESS_TIMEOUT_MS, cwd, label = 'a bash script' } = options;
  const child = spawn('bash', ['-c', script], { env, cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout = (stdout + chunk.toString()).slice(-OUTPUT_LIMIT)));
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-OUTPUT_LIMIT)));
  const signalGroup = (signal: NodeJS.Signals): boolean => {
    try {
      process.kill(-(child.pid ?? 0), signal);
      return true;
    } catch {
      return false; // the group is gone: nothing was left running
    }
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      // SIGTERM first: a script that started jobs in process groups of their own (`set -m`) stops them in its
      // TERM trap, which SIGKILL would never let it run; whatever is left is killed after the grace period.
      signalGroup('SIGTERM');
      setTimeout(() => signalGroup('SIGKILL'), STOP_GRACE_MS).unref();
      reject(new Error(`${label} did not finish within ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      running.delete(child);
      if (signalGroup('SIGTERM')) setTimeout(() => signalGroup('SIGKILL'), STOP_GRACE_MS).unref();
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}
