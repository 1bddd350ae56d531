// The first start of an embedded database makes a sandbox platform named `default`, so a newcomer can call
// the API at once. Its credentials are shown once: on the terminal when there is one; otherwise (a service
// manager, a container log) in a file only this user can read, whose path is printed instead, so the secret
// never lands in a log collector. They never go through the logger. A later start says where they are and
// how to make a new pair, since the secret itself cannot be shown again (only its hash is kept).
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { App } from '../app.ts';
import type { Config } from '../config.ts';
import { countPlatforms, createFirstPlatform, firstPlatformId, type CreatedPlatform } from '../services/platforms.ts';
import { applyPresetCredentials } from '../services/sandbox-credentials.ts';
import { CREDENTIALS_FILE, credentialsText } from './credentials-file.ts';

export interface Terminal {
  isTTY: boolean;
  write(text: string): void;
}

function credentialLines(created: CreatedPlatform): string[] {
  return credentialsText(created.platformId, created.sandbox).split('\n');
}

/** A later start: where the first start's credentials went, and the command that makes a new pair. */
async function remindCredentials(app: App, config: Config, terminal: Terminal): Promise<void> {
  const platformId = await firstPlatformId(app.services.ctx);
  if (!platformId) return;
  const file = join(config.dataDir, CREDENTIALS_FILE);
  const where = existsSync(file)
    ? `are in ${file} (the payouts commands that call the API read them there)`
    : 'were shown at its first start';
  terminal.write(
    `Platform "default" is ${platformId}: its sandbox credentials ${where}. A new pair: ` +
      `\`payouts tokens create --platform ${platformId} --env sandbox --name NAME\`.\n`,
  );
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
  if (!created) {
    // With preset credentials the operator knows the pair already: presetStart has said what it did.
    if (!config.sandboxCredentials) await remindCredentials(app, config, terminal);
    return;
  }
  if (terminal.isTTY) {
    terminal.write(
      ['', 'Created platform "default". Its sandbox credentials (shown only now):', ...credentialLines(created), '']
        .map((line) => `${line}\n`)
        .join(''),
    );
    return;
  }
  const file = join(config.dataDir, CREDENTIALS_FILE);
  const text = `Sandbox credentials of platform "default"\n${credentialsText(created.platformId, created.sandbox)}\n`;
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
