// The file a first start without a terminal writes the `default` platform's sandbox credentials to, under
// DATA_DIR. The server writes it and the CLI's API commands read it (api-client.ts), so a developer on the
// server's machine needs no copy-and-paste. It loads nothing heavy: `payouts trigger` reads it.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const CREDENTIALS_FILE = 'default-platform-credentials.txt';

export interface SandboxPair {
  tokenId: string;
  clientSecret: string;
}

/** Where the server of this environment keeps the file: DATA_DIR, else ./data, as the server reads it. */
export function credentialsFilePath(env: NodeJS.ProcessEnv): string {
  return join(resolve(env.DATA_DIR || './data'), CREDENTIALS_FILE);
}

/** The file's text: a title line, then one `name: value` line each, the way a person reads it. */
export function credentialsText(platformId: string, pair: SandboxPair): string {
  const basic = Buffer.from(`${pair.tokenId}:${pair.clientSecret}`).toString('base64');
  return [
    `platformId:   ${platformId}`,
    `tokenId:      ${pair.tokenId}`,
    `clientSecret: ${pair.clientSecret}`,
    `header:       Authorization: Basic ${basic}`,
  ].join('\n');
}

/** The pair in a file the server wrote; undefined when there is no such file or it holds no pair. */
export function readCredentialsFile(path: string): SandboxPair | undefined {
  if (!existsSync(path)) return undefined;
  const text = readFileSync(path, 'utf8');
  const field = (name: string) => new RegExp(`^${name}:[ \\t]+(\\S+)[ \\t]*$`, 'm').exec(text)?.[1];
  const tokenId = field('tokenId');
  const clientSecret = field('clientSecret');
  return tokenId && clientSecret ? { tokenId, clientSecret } : undefined;
}
