#!/usr/bin/env node
// Runs the test suite while other processes keep every core busy: the proof that no test depends on an
// idle machine. Use it before submitting any change to tests that spawn processes or wait on time.
//
//   npm run test:stress                      # the whole suite once, every core busy
//   npm run test:stress -- --rounds 2        # twice in a row
//   npm run test:stress -- test/foundation/cli.test.ts
import { spawn, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string', default: '1' },
    burners: { type: 'string', default: String(availableParallelism()) },
  },
});
const rounds = Number(values.rounds);
const burnerCount = Number(values.burners);
if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(burnerCount) || burnerCount < 0) {
  process.stderr.write('usage: stress.mjs [--rounds N] [--burners N] [test files…]\n');
  process.exit(2);
}

// Each burner spins one core at full speed until it is killed (and kills itself after an hour at most).
const burners = Array.from({ length: burnerCount }, () =>
  spawn(process.execPath, ['-e', 'const end = Date.now() + 3_600_000; while (Date.now() < end);'], { stdio: 'ignore' }),
);
const stopBurners = () => burners.forEach((b) => b.kill('SIGKILL'));
process.on('exit', stopBurners);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

let failed = 0;
for (let round = 1; round <= rounds && !failed; round++) {
  process.stdout.write(
    `\n##### stress round ${round} of ${rounds}, ${burnerCount} busy processes beside the suite #####\n`,
  );
  const started = Date.now();
  failed = spawnSync(process.execPath, ['scripts/test.mjs', ...positionals], { stdio: 'inherit' }).status ?? 1;
  process.stdout.write(
    `##### round ${round}: ${failed ? 'FAILED' : 'passed'} in ${((Date.now() - started) / 1000).toFixed(1)} s #####\n`,
  );
}
process.exit(failed);
