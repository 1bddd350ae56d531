#!/usr/bin/env node
// The `payouts` command as installed: it runs the compiled JavaScript in dist/ on plain Node. `npm run build`
// makes dist/ (`npm pack` and `npm publish` run it, as `prepack`: an install of the package runs no script of
// its own). Inside the repository, `npm start`, the tests and the bench run the TypeScript sources through tsx
// instead, so an edit needs no rebuild.
try {
  await import('../dist/main.js');
} catch (err) {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes('dist/main.js')) throw err;
  process.stderr.write('payouts: dist/ is missing; run `npm run build` first (or `npm start` for the sources)\n');
  process.exitCode = 1;
}
