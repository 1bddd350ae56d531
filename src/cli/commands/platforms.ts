// The platforms and their tokens. The services are loaded by the command that runs, not for every command's
// --help (test/foundation/cli-start.test.ts).
import type { Environment } from '../../domain/environments.ts';
import { PERMISSIONS, type Permission } from '../../domain/permissions.ts';
import { stringOption, type CliCommand } from '../command.ts';
import { printJson, withServices } from '../services.ts';

const platformsService = () => import('../../services/platforms.ts');
const tokensService = () => import('../../services/tokens.ts');

const json = { flags: '--json', description: 'print one JSON line' };

export const platformCommands: CliCommand[] = [
  {
    path: ['platforms', 'create'],
    summary: 'create a platform with a sandbox and a production token (secrets shown only now)',
    options: [{ flags: '--name <name>', description: 'the platform name', required: true }, json],
    database: 'uses',
    writes: true,
    async run({ config, options }) {
      const name = stringOption(options, 'name') ?? '';
      const { createPlatform } = await platformsService();
      const created = await withServices(config, ({ services }) => createPlatform(services.ctx, name));
      if (options.json) printJson(created, true);
      else process.stdout.write(`platform ${created.platformId}\n${JSON.stringify(created, null, 2)}\n`);
      return 0;
    },
  },
  {
    path: ['platforms', 'list'],
    summary: 'list every platform: id, name, creation time',
    options: [json],
    database: 'uses',
    writes: false,
    async run({ config, options }) {
      const { listPlatforms } = await platformsService();
      const platforms = await withServices(config, ({ services }) => listPlatforms(services.ctx));
      if (options.json) printJson(platforms, true);
      else for (const p of platforms) process.stdout.write(`${p.id}\t${p.name}\t${p.createdAt}\n`);
      return 0;
    },
  },
];

export const tokenCommands: CliCommand[] = [
  {
    path: ['tokens', 'create'],
    summary: 'create another API token for one environment of a platform',
    options: [
      { flags: '--platform <id>', description: 'the platform id', required: true },
      { flags: '--env <env>', description: 'the environment', required: true, choices: ['sandbox', 'production'] },
      { flags: '--name <name>', description: 'a name for the token', required: true },
      { flags: '--permissions <list>', description: `comma-separated, of ${PERMISSIONS.join(',')} (default: all)` },
      json,
    ],
    database: 'uses',
    writes: true,
    async run({ config, options, fail }) {
      const platform = stringOption(options, 'platform') ?? '';
      const scope = { platformId: platform, environment: stringOption(options, 'env') as Environment };
      const permissions = (stringOption(options, 'permissions') ?? PERMISSIONS.join(','))
        .split(',')
        .map((p) => p.trim().toUpperCase());
      const unknown = permissions.filter((p) => !(PERMISSIONS as readonly string[]).includes(p));
      if (unknown.length) fail(`unknown permissions: ${unknown.join(', ')} (use ${PERMISSIONS.join(', ')})`);
      const [{ platformExists }, { insertToken }] = await Promise.all([platformsService(), tokensService()]);
      const token = await withServices(config, async ({ store, services }) => {
        if (!(await platformExists(services.ctx, platform))) fail(`no platform ${platform}`);
        return insertToken(
          store.db,
          services.ctx,
          scope,
          stringOption(options, 'name') ?? '',
          permissions as Permission[],
        );
      });
      printJson(token, options.json === true);
      return 0;
    },
  },
  {
    path: ['tokens', 'list'],
    summary: "list a platform's tokens, both environments, revoked ones included (never a secret)",
    options: [{ flags: '--platform <id>', description: 'the platform id', required: true }, json],
    database: 'uses',
    writes: false,
    async run({ config, options, fail }) {
      const platform = stringOption(options, 'platform') ?? '';
      const [{ platformExists }, { listPlatformTokens }] = await Promise.all([platformsService(), tokensService()]);
      const tokens = await withServices(config, async ({ services }) => {
        if (!(await platformExists(services.ctx, platform))) fail(`no platform ${platform}`);
        return listPlatformTokens(services.ctx, platform);
      });
      if (options.json) printJson(tokens, true);
      for (const t of options.json ? [] : tokens) {
        const state = t.revokedAt ? `revoked ${t.revokedAt}` : 'active';
        process.stdout.write(`${t.id}\t${t.environment}\t${t.name}\t${t.permissions.join(',')}\t${state}\n`);
      }
      return 0;
    },
  },
  {
    path: ['tokens', 'revoke'],
    args: '<id>',
    summary: 'revoke a token: it stops authenticating at once',
    database: 'uses',
    writes: true,
    async run({ config, args }) {
      const { revokeTokenById } = await tokensService();
      const token = await withServices(config, ({ services }) => revokeTokenById(services.ctx, args[0] ?? ''));
      process.stdout.write(`${token.id} revoked at ${token.revokedAt}\n`);
      return 0;
    },
  },
];
