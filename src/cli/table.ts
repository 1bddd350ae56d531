// Every command of `payouts`, in the order `payouts --help` lists them. A new command is a new entry here
// (see command.ts for what an entry says); the parser, --help and the exit codes come with it.
import type { CliCommand } from './command.ts';
import { backupCommands } from './commands/backup.ts';
import { bankFakeCommand } from './commands/bank-fake.ts';
import { bankCommands } from './commands/bank.ts';
import { contractCheckCommand } from './commands/contract-check.ts';
import { bankIngestCommand } from './commands/bank-ingest.ts';
import { fixturesCommand } from './commands/fixtures.ts';
import { keyCommands } from './commands/keys.ts';
import { listenCommand } from './commands/listen.ts';
import { logsCommands } from './commands/logs.ts';
import { mcpCommand } from './commands/mcp.ts';
import { migrateCommand, operationCommands } from './commands/operations.ts';
import { platformCommands, tokenCommands } from './commands/platforms.ts';
import { reconcileCommand } from './commands/reconcile.ts';
import { serveCommand } from './commands/serve.ts';
import { settlementCommands } from './commands/settlement.ts';
import { triggerCommand } from './commands/trigger.ts';

export const COMMANDS: readonly CliCommand[] = [
  serveCommand,
  migrateCommand,
  ...platformCommands,
  ...tokenCommands,
  ...operationCommands,
  ...settlementCommands,
  ...bankCommands,
  bankIngestCommand,
  bankFakeCommand,
  reconcileCommand,
  ...backupCommands,
  ...keyCommands,
  fixturesCommand,
  triggerCommand,
  listenCommand,
  ...logsCommands,
  mcpCommand,
  contractCheckCommand,
];
