import assert from 'node:assert/strict';
import { heapGrowingFlag, SERVER_HEAP_GROWING_PERCENT } from '../../src/cli/heap-growth.ts';
import { describe, it } from '../helpers/node-test.ts';
import { runCommand } from '../helpers/processes.ts';

/**
 * A program that keeps promoting garbage: 15 MB stays alive throughout, and each batch of objects lives
 * through a few scavenges (as a request in flight does) before it is dropped, about 100 MB in all. It prints
 * how many full GCs ran meanwhile: a few with V8's own growing factor, several times as many with the bound.
 */
const PROMOTES_GARBAGE = `
  import { PerformanceObserver, constants } from 'node:perf_hooks';
  const heapGrowth = ${JSON.stringify(new URL('../../src/cli/heap-growth.ts', import.meta.url).href)};
  if (process.argv.includes('bound')) (await import(heapGrowth)).boundHeapGrowth([]);
  let majors = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++;
  }).observe({ entryTypes: ['gc'] });
  const batch = (i) => Array.from({ length: 1000 }, (_, j) => ({ i, j, text: 'x'.repeat(16 + (j % 32)) }));
  const kept = Array.from({ length: 60 }, (_, i) => batch(i));
  const inFlight = [];
  for (let i = 0; i < 1200; i++) {
    inFlight.push(batch(i));
    if (inFlight.length > 60) inFlight.shift();
    if (i % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  console.log(majors, kept.length);
`;

async function fullGcs(mode: 'bound' | 'default'): Promise<number> {
  const run = await runCommand(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', PROMOTES_GARBAGE, mode],
    {
      env: process.env,
      timeoutMs: 60_000,
    },
  );
  assert.equal(run.code, 0, `the ${mode} program failed: ${run.stderr}`);
  return Number(run.stdout.trim().split(' ')[0]);
}

describe('the server bounds the growth of its heap', () => {
  it('sets the growing percent unless node was started with one', () => {
    assert.equal(
      heapGrowingFlag(['--import', 'tsx']),
      `--heap-growing-percent=${SERVER_HEAP_GROWING_PERCENT}`,
      'a server started without the flag gets the bound',
    );
    for (const own of ['--heap-growing-percent=50', '--heap_growing_percent=0', '--heap-growing-percent'])
      assert.equal(heapGrowingFlag([own, '--import', 'tsx']), undefined, `the operator's ${own} is left alone`);
    assert.equal(
      heapGrowingFlag(['--heap-growing-percentage=5']),
      `--heap-growing-percent=${SERVER_HEAP_GROWING_PERCENT}`,
      'another flag that only starts the same is not the operator choosing a percent',
    );
  });

  it('makes this node collect its old generation more often', async () => {
    // If a node release dropped the flag or refused it after start, the bound would silently do nothing.
    const bound = await fullGcs('bound');
    const unbound = await fullGcs('default');
    assert.ok(bound > unbound, `with the bound ${bound} full GCs ran, without it ${unbound}: the flag had no effect`);
  });
});
