#!/usr/bin/env node
// The `payouts` command. Installed from the package, it runs the compiled JavaScript in dist/ on plain Node
// (`npm pack` builds it, as `prepack`: an install of the package runs no script of its own). In a clone where
// nothing was built yet, it runs the TypeScript sources through tsx (a dev dependency), as `npm start` does,
// so `npx payouts` works right after `npm install`.
async function runSources() {
  let tsx;
  try {
    tsx = await import('tsx/esm/api');
  } catch {
    process.stderr.write('payouts: dist/ is missing; run `npm run build` first (or `npm start` for the sources)\n');
    process.exitCode = 1;
    return;
  }
  tsx.register();
  await import('../src/main.ts');
}

try {
  await import('../dist/main.js');
} catch (err) {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes('dist/main.js')) throw err;
  await runSources();
}
