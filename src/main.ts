// The `payouts` command: parses the command line against the command table (cli/table.ts) and turns
// every way a command can end into one exit code and, for an operator's mistake, one line on stderr.
import { ApiRefused, ServerUnreachable } from './cli/api-client.ts';
import { buildProgram, CommanderError, exitCodeOf, type ProgramOutcome } from './cli/program.ts';
import { COMMANDS } from './cli/table.ts';
import { ConfigError, type Config } from './config.ts';
import { AppError } from './domain/errors.ts';
import { describeStartupError } from './startup-errors.ts';
import { DataDirBusyError } from './store/data-dir-lock.ts';
import { BackupError } from './store/backup.ts';
import { UnknownMigrationError } from './store/migrate.ts';
import { VERSION } from './version.ts';

/** The exit code and the line an operator reads for a command that threw. */
function report(err: unknown, config: Config | undefined): number {
  if (err instanceof CommanderError) return exitCodeOf(err); // commander has printed the message and usage
  const operatorInput = [AppError, DataDirBusyError, BackupError, UnknownMigrationError, ServerUnreachable, ApiRefused];
  if (operatorInput.some((kind) => err instanceof kind)) {
    // A missing transaction or account, or one in the wrong state, is the operator's input, not a crash.
    process.stderr.write(`payouts: ${(err as Error).message}\n`);
    return 1;
  }
  if (err instanceof ConfigError) {
    process.stderr.write(`payouts: ${err.message}\n`);
    return 2;
  }
  const known = config && describeStartupError(err, config);
  process.stderr.write(`payouts: ${known ?? (err instanceof Error ? err.stack : String(err))}\n`);
  return 1;
}

const outcome: ProgramOutcome = { exitCode: 0 };
const argv = process.argv.slice(2);
buildProgram(COMMANDS, VERSION, outcome)
  .parseAsync(argv.length === 0 ? ['--help'] : argv, { from: 'user' })
  .then(
    () => {
      if (outcome.exitCode !== undefined) process.exitCode = outcome.exitCode;
    },
    (err: unknown) => {
      process.exitCode = report(err, outcome.config);
    },
  );
