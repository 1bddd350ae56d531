/**
 * How long the test API takes to give a test suite a sandbox, as ratios to baselines measured in the same run
 * on the same machine (absolute times depend on the machine and its load; ratios travel):
 * - startSandbox() in-process, against a bare Fastify app that listens on a port;
 * - startSandbox({ mode: 'child-process' }), against starting Node itself with the same loader;
 * - newWorkspace(), against both starts: what a workspace per test saves over a sandbox per test;
 * - `payouts --version` from the build, against `node -e 0`: what any command pays before it runs.
 *
 *   npm run bench:lab:start
 *   BENCH_ROUNDS=10 npm run bench:lab:start
 *
 * From the repository the child process runs the sources through tsx (as the tests do), so its baseline is
 * `node --import tsx -e 0`; an installed package runs dist/ on plain Node, whose baseline is `node -e 0`: that
 * row is measured too when dist/ exists (`npm run build` first, so that it is the code you mean).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import Fastify from 'fastify';
import { startSandbox } from '../../src/testing/index.ts';

/** The built test API (dist/, made by `npm run build`), whose child process runs bin/payouts.mjs on plain Node. */
const BUILT = new URL('../../dist/testing/index.js', import.meta.url);

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WORKSPACE_ROUNDS = ROUNDS * 10;

/** Median milliseconds of `rounds` runs of `step` (each awaited alone), after one warm-up run. */
async function median(rounds: number, step: () => Promise<unknown>): Promise<number> {
  await step();
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    await step();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? 0;
}

/** The time to start something and have it ready, with its stop outside the measured span. */
async function startTime(rounds: number, start: () => Promise<() => Promise<unknown>>): Promise<number> {
  const stops: Array<() => Promise<unknown>> = [];
  try {
    return await median(rounds, async () => stops.push(await start()));
  } finally {
    for (const stop of stops) await stop();
  }
}

async function bareFastify(): Promise<() => Promise<unknown>> {
  const app = Fastify();
  app.get('/healthz', async () => ({ ok: true }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  return () => app.close();
}

function node(args: string[]): () => Promise<() => Promise<unknown>> {
  return async () => {
    const result = spawnSync(process.execPath, args, { stdio: 'ignore' });
    if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}`);
    return async () => undefined;
  };
}

// A bare start takes milliseconds: many rounds, so the baseline's median is not one scheduler hiccup.
const fastify = await startTime(WORKSPACE_ROUNDS, bareFastify);
const inProcess = await startTime(ROUNDS, async () => {
  const sandbox = await startSandbox();
  return () => sandbox.close();
});
const plainNode = await startTime(ROUNDS, node(['-e', '0']));
const tsxNode = await startTime(ROUNDS, node(['--import', 'tsx', '-e', '0']));
const childProcess = await startTime(ROUNDS, async () => {
  const sandbox = await startSandbox({ mode: 'child-process' });
  return () => sandbox.close();
});
const built = existsSync(BUILT)
  ? ((await import(BUILT.href)) as typeof import('../../src/testing/index.ts')).startSandbox
  : undefined;
const childBuilt =
  built &&
  (await startTime(ROUNDS, async () => {
    const sandbox = await built({ mode: 'child-process' });
    return () => sandbox.close();
  }));
// A command that needs neither the server nor the database loads the command table alone.
const cliVersion = existsSync(new URL('../../dist/main.js', import.meta.url))
  ? await startTime(ROUNDS, node(['bin/payouts.mjs', '--version']))
  : undefined;
const sandbox = await startSandbox();
let workspace: number;
try {
  workspace = await median(WORKSPACE_ROUNDS, () => sandbox.newWorkspace());
} finally {
  await sandbox.close();
}

const rows: Array<[string, number, string]> = [
  ['bare Fastify app: listen on a port', fastify, 'baseline'],
  ['startSandbox() in-process', inProcess, `${(inProcess / fastify).toFixed(1)} x bare Fastify`],
  ['node -e 0', plainNode, 'baseline'],
  ['node --import tsx -e 0', tsxNode, 'baseline (the child from the sources)'],
  ['startSandbox() child-process', childProcess, `${(childProcess / tsxNode).toFixed(1)} x node --import tsx -e 0`],
  childBuilt === undefined
    ? ['startSandbox() child-process, built', Number.NaN, 'not measured: no dist/ (npm run build)']
    : ['startSandbox() child-process, built', childBuilt, `${(childBuilt / plainNode).toFixed(1)} x node -e 0`],
  cliVersion === undefined
    ? ['payouts --version, built', Number.NaN, 'not measured: no dist/ (npm run build)']
    : ['payouts --version, built', cliVersion, `${(cliVersion / plainNode).toFixed(1)} x node -e 0`],
  ['newWorkspace()', workspace, `${(workspace / fastify).toFixed(1)} x bare Fastify`],
  ['  a workspace per test instead of a sandbox', workspace, `${(inProcess / workspace).toFixed(0)} x faster`],
];
const table = rows.map(([what, ms, ratio]) => `${what.padEnd(44)} ${ms.toFixed(1).padStart(8)} ms   ${ratio}`);
process.stdout.write(
  [
    `test API start times: median of ${ROUNDS} starts (${WORKSPACE_ROUNDS} workspaces), embedded database`,
    ...table,
    'Only the ratios carry over to another machine; the milliseconds are this run on this machine.',
    '',
  ].join('\n'),
);
