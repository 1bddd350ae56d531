import { readFileSync } from 'node:fs';
import { describeStartupError } from './startup-errors.ts';
import { FAILURE_REASONS, isFailureReason } from './domain/failure-reasons.ts';
import { RAIL_FAILURE } from './services/transactions/index.ts';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { createApp, openServices } from './app.ts';
import { API_VERSION } from './http/http.ts';
import { migrate, openStore } from './store/db.ts';
import { countPlatforms, createPlatform, platformExists } from './services/platforms.ts';
import { insertToken, PERMISSIONS, type Permission } from './services/tokens.ts';
import { verifyLedger } from './ledger/verify.ts';
import { AppError } from './domain/errors.ts';
import type { Environment } from './domain/environments.ts';

const USAGE = `Usage: payouts <command>

  serve                               start the HTTP server (PORT, HOST, DATA_DIR, DATABASE_URL)
  migrate                             bring the database schema up to date
  platforms create --name NAME [--json]
  tokens create --platform ID --env sandbox|production --name NAME [--permissions VIEW,TRANSACT,MANAGE] [--json]
  ledger verify                       check every ledger invariant; exits 1 naming each violation
  accounts activate ID                make a PENDING or UNDER_REVIEW external account ACTIVE (operator review)
  transactions settle ID              the rail paid out: complete a PROCESSING transaction
  transactions fail ID [--reason R]   the rail failed: fail a PROCESSING transaction and refund the payer
`;

class UsageError extends Error {}

function isParseArgsError(err: unknown): boolean {
  return (
    typeof (err as { code?: unknown })?.code === 'string' && (err as { code: string }).code.startsWith('ERR_PARSE_ARGS')
  );
}

function fail(message: string): never {
  throw new UsageError(message);
}

async function serve(config: Config): Promise<void> {
  const app = await createApp(config);
  try {
    await app.http.listen({ port: config.port, host: config.host });
  } catch (err) {
    // Nothing was served and nothing was created: close what was opened, so the process can exit.
    await app.close();
    throw err;
  }
  // Only once the port is ours, so a start that cannot serve never prints (and loses) credentials.
  if ((await countPlatforms(app.services.ctx)) === 0) {
    const created = await createPlatform(app.services.ctx, 'default');
    // Printed once, on the first start of an empty database, so a newcomer can call the API at once.
    const basic = Buffer.from(`${created.sandbox.tokenId}:${created.sandbox.clientSecret}`).toString('base64');
    process.stdout.write(
      [
        '',
        'Created platform "default". Its sandbox credentials (shown only now):',
        `  tokenId:      ${created.sandbox.tokenId}`,
        `  clientSecret: ${created.sandbox.clientSecret}`,
        `  header:       Authorization: Basic ${basic}`,
        '',
      ].join('\n') + '\n',
    );
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.http.log.info({ signal }, 'shutting down');
    // Stop accepting, let requests in flight finish, stop workers, then close the database.
    await app.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  app.http.log.info({ engine: app.store.engine, api: `/${API_VERSION}` }, 'payouts service ready');
}

type Command = (config: Config, sub: string | undefined, rest: string[]) => Promise<number>;

/** Opens the database and the services for one command, and closes them whatever happens. */
async function withServices<T>(config: Config, work: (opened: Awaited<ReturnType<typeof openServices>>) => Promise<T>) {
  const opened = await openServices(config);
  try {
    return await work(opened);
  } finally {
    await opened.store.close();
  }
}

const migrateCommand: Command = async (config) => {
  const store = openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  try {
    const applied = await migrate(store);
    process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'schema is up to date\n');
  } finally {
    await store.close();
  }
  return 0;
};

const platformsCommand: Command = async (config, sub, rest) => {
  if (sub !== 'create') fail('expected: platforms create --name NAME [--json]');
  const { values } = parseArgs({ args: rest, options: { name: { type: 'string' }, json: { type: 'boolean' } } });
  const name = values.name ?? fail('--name is required');
  const created = await withServices(config, ({ services }) => createPlatform(services.ctx, name));
  process.stdout.write(
    values.json
      ? JSON.stringify(created) + '\n'
      : `platform ${created.platformId}\n${JSON.stringify(created, null, 2)}\n`,
  );
  return 0;
};

const tokensCommand: Command = async (config, sub, rest) => {
  if (sub !== 'create') fail('expected: tokens create --platform ID --env sandbox|production --name NAME');
  const { values } = parseArgs({
    args: rest,
    options: {
      platform: { type: 'string' },
      env: { type: 'string' },
      name: { type: 'string' },
      permissions: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  if (!values.platform || !values.name) fail('--platform and --name are required');
  const { platform, name } = values;
  if (values.env !== 'sandbox' && values.env !== 'production') fail('--env must be sandbox or production');
  const scope = { platformId: platform, environment: values.env as Environment };
  const permissions = (values.permissions ?? PERMISSIONS.join(',')).split(',').map((p) => p.trim().toUpperCase());
  const unknown = permissions.filter((p) => !(PERMISSIONS as readonly string[]).includes(p));
  if (unknown.length) fail(`unknown permissions: ${unknown.join(', ')} (use ${PERMISSIONS.join(', ')})`);
  const token = await withServices(config, async ({ store, services }) => {
    if (!(await platformExists(services.ctx, platform))) fail(`no platform ${platform}`);
    return insertToken(store.db, services.ctx, scope, name, permissions as Permission[]);
  });
  process.stdout.write((values.json ? JSON.stringify(token) : JSON.stringify(token, null, 2)) + '\n');
  return 0;
};

const ledgerCommand: Command = async (config, sub) => {
  if (sub !== 'verify') fail('expected: ledger verify');
  const violations = await withServices(config, ({ store }) => verifyLedger(store));
  if (violations.length === 0) {
    process.stdout.write('ledger ok: every invariant holds\n');
    return 0;
  }
  for (const v of violations) process.stdout.write(`VIOLATION ${v.invariant}: ${v.detail}\n`);
  return 1;
};

const accountsCommand: Command = async (config, sub, rest) => {
  const [id, ...extra] = rest;
  if (sub !== 'activate' || !id || extra.length > 0) fail('expected: accounts activate ID');
  const account = await withServices(config, ({ services }) => services.externalAccounts.activate(id));
  process.stdout.write(`${account.id} is ${account.status}\n`);
  return 0;
};

const transactionsCommand: Command = async (config, sub, rest) => {
  const { values, positionals } = parseArgs({
    args: rest,
    options: { reason: { type: 'string' } },
    allowPositionals: true,
  });
  const [id, ...extra] = positionals;
  if ((sub !== 'settle' && sub !== 'fail') || !id || extra.length > 0)
    fail('expected: transactions settle ID | transactions fail ID [--reason REASON]');
  if (sub === 'settle' && values.reason) fail('--reason goes with fail');
  const reason = values.reason ?? RAIL_FAILURE.reason;
  // Only a public value: clients decode failureReason against the contract's list.
  if (!isFailureReason(reason)) fail(`--reason must be one of ${FAILURE_REASONS.join(', ')}`);
  const result = sub === 'settle' ? 'COMPLETE' : 'FAIL';
  const tx = await withServices(config, ({ services }) =>
    services.transactions.resolveManually(id, result, { ...RAIL_FAILURE, reason }),
  );
  process.stdout.write(`${tx.id} is ${tx.status}${tx.failureReason ? ` (${tx.failureReason})` : ''}\n`);
  return 0;
};

const COMMANDS: Record<string, Command> = {
  migrate: migrateCommand,
  platforms: platformsCommand,
  tokens: tokensCommand,
  ledger: ledgerCommand,
  accounts: accountsCommand,
  transactions: transactionsCommand,
};

/** The configuration the command started with, for describing a failure to start. */
let startupConfig: Config | undefined;

/** The usage of one command (its lines of USAGE), or the whole of it. */
function usageOf(command: string | undefined): string {
  const lines = USAGE.split('\n').filter((line) => command !== undefined && line.startsWith(`  ${command}`));
  return lines.length > 0 ? `Usage: payouts ${lines.map((l) => l.trim()).join('\n       payouts ')}\n` : USAGE;
}

function version(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

async function main(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  if (command === '--version' || command === '-v') {
    process.stdout.write(`payouts ${version()}\n`);
    return 0;
  }
  // --help anywhere prints usage and does nothing else: `serve --help` must not start a server.
  if (!command || command === 'help' || argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(command === 'help' || command === '--help' || command === '-h' ? USAGE : usageOf(command));
    return 0;
  }
  const config = loadConfig();
  startupConfig = config;
  if (command === 'serve') {
    await serve(config);
    return -1; // keeps running
  }
  const run = COMMANDS[command] ?? fail(`unknown command "${command}"`);
  return run(config, sub, rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err) => {
    if (err instanceof AppError) {
      // A missing transaction or account, or one in the wrong state, is the operator's input, not a crash.
      process.stderr.write(`payouts: ${err.message}\n`);
      process.exitCode = 1;
    } else if (isParseArgsError(err)) {
      // parseArgs refuses unknown options and missing values itself; the operator gets the usage.
      process.stderr.write(`payouts: ${(err as Error).message}\n\n${usageOf(process.argv[2])}`);
      process.exitCode = 2;
    } else if (err instanceof UsageError || err instanceof ConfigError) {
      process.stderr.write(`payouts: ${err.message}\n\n${err instanceof UsageError ? USAGE : ''}`);
      process.exitCode = 2;
    } else {
      const known = startupConfig && describeStartupError(err, startupConfig);
      process.stderr.write(`payouts: ${known ?? (err instanceof Error ? err.stack : String(err))}\n`);
      process.exitCode = 1;
    }
  },
);
