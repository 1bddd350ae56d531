// The benches run with the smallest knobs, so they cannot rot: each exits 0 and prints its table or its ratio
// lines. No figure is held to a value: a time or a rate on a shared machine proves nothing.
import assert from 'node:assert/strict';
import { describe, it } from '../helpers/node-test.ts';
import { runCommand } from '../helpers/processes.ts';

const TIMEOUT_MS = 600_000;

async function bench(script: string, knobs: Record<string, string>) {
  const result = await runCommand(process.execPath, ['--import', 'tsx', script], {
    // The bench covers PostgreSQL exactly when this run of the suite does.
    env: { ...process.env, BENCH_DATABASE_URL: '', ...knobs },
    timeoutMs: TIMEOUT_MS,
    label: script,
  });
  assert.equal(result.code, 0, `${script} exits 0\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
  return result.stdout;
}

const engines = () => (process.env.TEST_DATABASE_URL ? ['SQLite', 'PostgreSQL'] : ['SQLite']);

describe('benches', () => {
  it('npm run bench prints one table per engine, each party measured', { timeout: TIMEOUT_MS }, async () => {
    // The sources: the package test rebuilds dist/ while the suite runs.
    const out = await bench('bench/run.ts', { BENCH_SECONDS: '0.3', BENCH_CONCURRENCY: '2', BENCH_SERVER: 'sources' });
    const sections = out.split(/^(?=(?:SQLite|PostgreSQL) {2}\()/m).slice(1);
    assert.deepEqual(
      sections.map((s) => s.split(' ')[0]),
      engines(),
      `one table per engine, in order\n${out}`,
    );
    for (const section of sections) {
      assert.match(section, /\(2 clients, 3 rounds of 0\.3 s each party, interleaved\)/, 'the knobs are shown');
      assert.match(section, /^ {2}POST \/transfer-out +transfer-outs\/s +p50 ms +p99 ms +peak RSS$/m, 'the header');
      for (const party of ['payouts serve', 'raw SQL behind HTTP', 'stateless baseline']) {
        const row = new RegExp(`^ {2}${party} +(\\d+) +(\\d+\\.\\d) +(\\d+\\.\\d) +(\\d+) MB$`, 'm').exec(section);
        assert.ok(row, `a row for ${party}\n${section}`);
        assert.ok(Number(row[1]) > 0, `${party} carried transfer-outs\n${section}`);
        assert.ok(Number(row[4]) > 0, `${party}'s peak RSS is read\n${section}`);
      }
      for (const bound of ['raw SQL behind HTTP', 'stateless baseline'])
        assert.match(
          section,
          new RegExp(`^ {2}payouts serve ÷ ${bound} +\\d+\\.\\d\\d× +\\d+\\.\\d\\d× +\\d+\\.\\d\\d×$`, 'm'),
          `the service against ${bound}: rate, p50 and p99\n${section}`,
        );
      // Every request answered, every accepted payment terminal, and the bound wrote a payment per 201.
      assert.match(
        section,
        /^ {2}checks: 0 failed requests; every accepted payment terminal; every 201 wrote/m,
        section,
      );
    }
    assert.doesNotMatch(out, /CHECKS FAILED/, 'no check failed');
    assert.match(out, /cores .*Node v\d+/, 'the machine is described');
    if (!engines().includes('PostgreSQL')) assert.match(out, /PostgreSQL: skipped/, 'a skipped engine is said');
  });

  it('npm run bench:lab:transfer-out prints its ratios per engine', { timeout: TIMEOUT_MS }, async () => {
    const out = await bench('bench/lab/transfer-out.ts', {
      BENCH_SECONDS: '0.3',
      BENCH_CONCURRENCY: '2',
      BENCH_SERVER: 'sources',
    });
    for (const engine of engines()) assert.match(out, new RegExp(`^${engine} `, 'm'), `a section for ${engine}`);
    const count = (re: RegExp) => out.match(re)?.length ?? 0;
    for (const line of [
      /RATIO transfer-out full lifecycle \/ stateless +\d+\.\d\d×/g,
      /RATIO transfer-out full lifecycle \/ raw-SQL ceiling +\d+\.\d\d×/g,
      /RATIO transfer-out full lifecycle \/ raw SQL behind HTTP +\d+\.\d\d×/g,
      /RATIO round 3 \/ round 1: server \d+\.\d\d×/g,
      /webhook drain +\d+ events/g,
      /server peak RSS +\d+ MB/g,
      /CPU per full lifecycle \(ms\) +server \d+\.\d\d.*; +raw-SQL ceiling: its process \d+\.\d\d/g,
      /; +behind HTTP: its server \d+\.\d\d/g,
    ])
      assert.equal(count(line), engines().length, `${line.source} once per engine\n${out}`);
    if (engines().includes('PostgreSQL'))
      assert.match(out, /server \d+\.\d\d \+ PostgreSQL \d+\.\d\d;/, `PostgreSQL's own CPU is counted\n${out}`);
    assert.doesNotMatch(out, /NOT TERMINAL/, 'every accepted payment ended terminal');
    assert.doesNotMatch(out, /ROWS MISSING/, 'the ceiling behind HTTP wrote a payment for every 201 it answered');
    assert.match(
      out,
      /failed requests: 0; behind HTTP: 0\)/,
      'neither the server nor the ceiling behind HTTP failed one',
    );
    assert.match(out, /cores .*Node v\d+/, 'the machine is described');
  });

  it('npm run bench:lab:lifetimes prints its rounds per engine', { timeout: TIMEOUT_MS }, async () => {
    const out = await bench('bench/lab/lifetimes.ts', {
      BENCH_ROUNDS: '2',
      BENCH_SECONDS: '0.3',
      BENCH_CONCURRENCY: '2',
      BENCH_SERVER: 'sources',
    });
    const count = (re: RegExp) => out.match(re)?.length ?? 0;
    for (const line of [/RATIO round 2 \/ round 1 +\d+\.\d\d×/g, /expiry jobs run: \d+, of which/g])
      assert.equal(count(line), engines().length, `${line.source} once per engine\n${out}`);
  });

  it('npm run bench:lab:growth prints large ÷ small ratios per engine', { timeout: TIMEOUT_MS }, async () => {
    const out = await bench('bench/lab/growth.ts', {
      BENCH_GROWTH_SMALL: '100',
      BENCH_GROWTH_ROWS: '400',
      BENCH_SECONDS: '0.3',
      BENCH_CONCURRENCY: '2',
      BENCH_GROWTH_SAMPLES: '2',
    });
    const ratios = out.match(/^ {2}RATIO .+ \d+\.\d\d×( +\(.+ ms → .+ ms\))?$/gm) ?? [];
    assert.equal(ratios.length, 15 * engines().length, `fifteen ratio lines per engine\n${out}`);
    assert.match(out, /RATIO GET \/transactions, cursor half-way back/, 'the deep page is measured');
    assert.match(out, /RATIO dashboard home/, 'the dashboard home is measured');
    assert.match(out, /RATIO GET \/quotes\?customerId=/, 'the quotes are seeded and paged');
  });

  it('npm run bench:lab:bank prints its ratios and checks per engine', {
    timeout: TIMEOUT_MS,
  }, async () => {
    // Copies past the first 50 real payouts, so that both ways of making them run.
    const out = await bench('bench/lab/bank.ts', {
      BENCH_BANK_PAYMENTS: '500',
      BENCH_BANK_REAL: '50',
      BENCH_BANK_DESTINATIONS: '20',
    });
    const count = (re: RegExp) => out.match(re)?.length ?? 0;
    for (const line of [
      /^ {2}RATIO export \/ copy +\d+\.\d\d×$/gm,
      /^ {2}RATIO export \/ xmllint --schema +\d+\.\d\d×$/gm,
      /^ {2}RATIO ingest \/ xmllint --stream +\d+\.\d\d×$/gm,
      /^ {2}RATIO ingest \/ xmllint --stream --schema +\d+\.\d\d×$/gm,
      /^ {2}peak RSS during the export \(this process\) +\d+ MB/gm,
      /^ {2}peak RSS during the ingest \(this process\) +\d+ MB/gm,
      /^ {2}checks: every file released; 500 of 500 payments COMPLETED; the ledger verifies$/gm,
    ])
      assert.equal(count(line), engines().length, `${line.source} once per engine\n${out}`);
    assert.doesNotMatch(out, /CHECKS FAILED/, 'no check failed');
  });
});
