// `payouts fixtures FILE`: puts a running sandbox into a known state by sending a file's requests in order
// (cli/fixtures.ts reads the file). Every POST carries an Idempotency-Key derived from its step and its
// resolved request, so running the same file again answers with what the first run created.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { API_OPTIONS, ApiRefused, apiClientOf, expectOk, type ApiClient, type ApiRequest } from '../api-client.ts';
import { type CliCommand, type CliInput } from '../command.ts';
import type { FixtureStep, ResolvedRequest } from '../fixtures.ts';

/** The file's reader and checker, loaded by this command when it runs, not for every command's --help. */
const fixtures = () => import('../fixtures.ts');

/** The fixtures that ship with the package (its fixtures/ folder), by name: `payouts fixtures demo`. */
const BUILT_IN_FOLDER = new URL('../../../fixtures/', import.meta.url);

function builtInNames(): string[] {
  try {
    return readdirSync(BUILT_IN_FOLDER)
      .filter((file) => file.endsWith('.json'))
      .map((file) => file.slice(0, -'.json'.length));
  } catch {
    return [];
  }
}

/** The file's text: `-` is standard input, a built-in name its shipped file, anything else a path. */
function readFixtureText(arg: string): { label: string; text: string } | { problem: string } {
  const builtIn = /^[a-z][a-z0-9-]*$/.test(arg) && builtInNames().includes(arg);
  const file = arg === '-' ? 0 : builtIn ? fileURLToPath(new URL(`${arg}.json`, BUILT_IN_FOLDER)) : arg;
  const label = arg === '-' ? 'standard input' : arg;
  try {
    return { label, text: readFileSync(file, 'utf8') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const names = builtInNames().join(', ') || 'none';
    return code === 'ENOENT'
      ? { problem: `no file ${arg} (and no built-in fixture of that name; built-in: ${names})` }
      : { problem: `${label}: ${(err as Error).message}` };
  }
}

/** The file's checked steps, or its problems written on stderr (the caller exits 2). */
async function loadSteps(arg: string): Promise<FixtureStep[] | undefined> {
  const read = readFixtureText(arg);
  const problems: string[] = [];
  if ('problem' in read) problems.push(read.problem);
  else {
    let raw: unknown;
    try {
      raw = JSON.parse(read.text);
    } catch (err) {
      problems.push(`${read.label} is not JSON: ${(err as Error).message}`);
    }
    if (problems.length === 0) {
      const checked = (await fixtures()).checkFixtures(raw, process.env);
      if (!checked.problems) return checked.steps;
      problems.push(...checked.problems.map((problem) => `${read.label}: ${problem}`));
    }
  }
  for (const problem of problems) process.stderr.write(`payouts: ${problem}\n`);
  process.stderr.write('payouts: nothing was sent\n');
  return undefined;
}

/** The id of an answer, for the step's line: the object's own id, or `-` (a list, an empty answer). */
function idOf(body: unknown): string {
  const id = body !== null && typeof body === 'object' ? (body as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : '-';
}

/** Sends the steps in order; the exit code: 0 all answered 2xx, 1 one was refused, 2 a reference is missing. */
async function apply(steps: FixtureStep[], api: ApiClient, json: boolean): Promise<number> {
  const { FixtureReferenceError, idempotencyKeyOf, resolveStep } = await fixtures();
  const answers = new Map<string, unknown>();
  const width = Math.max(...steps.map((s) => s.name.length));
  const line = (step: FixtureStep, request: ApiRequest, status: string, rest: string) => {
    if (!json)
      process.stdout.write(
        `${step.name.padEnd(width)}  ${request.method.padEnd(6)} ${request.path}  ${status}  ${rest}\n`,
      );
  };
  for (const step of steps) {
    let resolved: ResolvedRequest;
    try {
      resolved = resolveStep(step, answers, process.env);
    } catch (err) {
      if (!(err instanceof FixtureReferenceError)) throw err;
      process.stderr.write(`payouts: ${err.message}; it and the steps after it were not sent\n`);
      return 2;
    }
    const request: ApiRequest =
      resolved.method === 'POST' ? { ...resolved, idempotencyKey: idempotencyKeyOf(step.name, resolved) } : resolved;
    const answer = await api.call(request);
    try {
      expectOk(request, answer);
    } catch (err) {
      if (!(err instanceof ApiRefused)) throw err;
      const code = (answer.body as { code?: unknown } | undefined)?.code;
      line(step, request, String(answer.status), typeof code === 'string' ? code : '-');
      process.stderr.write(`payouts: step "${step.name}" was refused: ${err.message}; nothing after it was sent\n`);
      return 1;
    }
    answers.set(step.name, answer.body);
    const replayed = answer.headers.get('idempotent-replayed') === 'true' ? '  (replayed)' : '';
    line(step, request, String(answer.status), `${idOf(answer.body)}${replayed}`);
  }
  if (json) process.stdout.write(`${JSON.stringify(Object.fromEntries(answers), null, 2)}\n`);
  return 0;
}

async function runFixtures(input: CliInput): Promise<number> {
  const [file = ''] = input.args;
  const api = await apiClientOf(input);
  const steps = await loadSteps(file);
  if (!steps) return 2;
  return apply(steps, api, input.options.json === true);
}

export const fixturesCommand: CliCommand = {
  path: ['fixtures'],
  args: '<file>',
  summary:
    'send a fixtures file (a path, - for standard input, or a built-in name: demo) to a running server, ' +
    'in order; running it again creates nothing new',
  options: [...API_OPTIONS, { flags: '--json', description: 'print {stepName: answer} instead of a line per step' }],
  database: 'none',
  writes: false,
  run: runFixtures,
};
