// The first start of an embedded database makes a sandbox platform named `default`, so a newcomer can call
// the API at once. Its credentials are shown once: on the terminal when there is one; otherwise (a service
// manager, a container log) in a file only this user can read, whose path is printed instead, so the secret
// never lands in a log collector. They never go through the logger.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { App } from '../app.ts';
import type { Config } from '../config.ts';
import { countPlatforms, createFirstPlatform, type CreatedPlatform } from '../services/platforms.ts';
import { applyPresetCredentials } from '../services/sandbox-credentials.ts';

export const CREDENTIALS_FILE = 'default-platform-credentials.txt';

export interface Terminal {
  isTTY: boolean;
  write(text: string): void;
}

function credentialLines(created: CreatedPlatform): string[] {
  const { tokenId, clientSecret } = created.sandbox;
  const basic = Buffer.from(`${tokenId}:${clientSecret}`).toString('base64');
  return [
    `platformId:   ${created.platformId}`,
    `tokenId:      ${tokenId}`,
    `clientSecret: ${clientSecret}`,
    `header:       Authorization: Basic ${basic}`,
  ];
}

/** Makes the `default` platform on the first start of an embedded database, and hands its credentials over. */
export async function firstStart(app: App, config: Config, terminal: Terminal): Promise<void> {
  if (config.databaseUrl) {
    // A shared PostgreSQL database is set up on purpose: its platforms are made by the operator.
    if ((await countPlatforms(app.services.ctx)) === 0) {
      terminal.write('No platform yet: create one with `payouts platforms create --name NAME`.\n');
    }
    return;
  }
  const created = await createFirstPlatform(app.services.ctx, 'default');
  if (!created) return;
  if (terminal.isTTY) {
    terminal.write(
      ['', 'Created platform "default". Its sandbox credentials (shown only now):', ...credentialLines(created), '']
        .map((line) => `${line}\n`)
        .join(''),
    );
    return;
  }
  const file = join(config.dataDir, CREDENTIALS_FILE);
  const text = `Sandbox credentials of platform "default"\n${credentialLines(created).join('\n')}\n`;
  writeFileSync(file, text, { mode: 0o600 });
  // writeFileSync's mode applies only to a file it creates; one left from an earlier database keeps its own.
  chmodSync(file, 0o600);
  terminal.write(`Created platform "default". Its sandbox credentials are in ${file} (readable by this user only).\n`);
}

/**
 * With preset sandbox credentials, the `default` platform accepts them before the port is bound, so the
 * very first request can use them. Nothing secret is shown: the operator chose the secret.
 */
export async function presetStart(app: App, config: Config, terminal: Terminal): Promise<void> {
  if (!config.sandboxCredentials || config.databaseUrl) return;
  const outcome = await applyPresetCredentials(app.services.ctx, config.sandboxCredentials);
  if (outcome === 'unchanged') return;
  const what = outcome === 'created-platform' ? 'Created platform "default"; its sandbox' : 'The "default" sandbox';
  terminal.write(`${what} accepts the preset credentials (token ${config.sandboxCredentials.tokenId}).\n`);
}
