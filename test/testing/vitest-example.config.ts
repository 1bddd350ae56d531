// The Vitest example (examples/vitest/) as the suite runs it: its own config, with the package's name
// resolved to this repository's sources, so the example runs what the tests test without a build.
import { fileURLToPath } from 'node:url';
import { mergeConfig } from 'vitest/config';
import example from '../../examples/vitest/vitest.config.ts';

export default mergeConfig(example, {
  root: fileURLToPath(new URL('../../examples/vitest/', import.meta.url)),
  // Vite's cache stays in this repository's node_modules, not in a node_modules of its own under examples/.
  cacheDir: fileURLToPath(new URL('../../node_modules/.vite', import.meta.url)),
  resolve: { alias: { '@payouts-sandbox/server': fileURLToPath(new URL('../../src/index.ts', import.meta.url)) } },
});
