import { readFileSync } from 'node:fs';

/** This build's version, from package.json: what `--version`, /healthz and payouts_build_info report. */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
