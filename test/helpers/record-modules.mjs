// Preloaded with `--import` by test/foundation/cli-start.test.ts: writes the URL of every module the process
// resolves, one per line, to the file MODULE_LOG names. The resolve hook runs on the loader's own thread,
// which has no way back to the test but the file.
import { register } from 'node:module';

const hook = `
import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(file, resolved.url + '\\n');
  return resolved;
}`;

if (process.env.MODULE_LOG)
  register(`data:text/javascript,${encodeURIComponent(hook)}`, { data: { file: process.env.MODULE_LOG } });
