// The `payouts` command: parses the command line against the command table (cli/table.ts) and turns
// every way a command can end into one exit code and, for an operator's mistake, one line on stderr.
import { buildProgram, CommanderError, exitCodeOf, normalizeArgv, type ProgramOutcome } from './cli/program.ts';
import { COMMANDS } from './cli/table.ts';
import type { Config } from './config.ts';
import { AppError, OperatorError } from './domain/errors.ts';
import { VERSION } from './version.ts';

/** The exit code and the line an operator reads for a command that threw. */
async function report(err: unknown, config: Config | undefined): Promise<number> {
  if (err instanceof CommanderError) return exitCodeOf(err); // commander has printed the message and usage
  // A missing transaction or account, or one in the wrong state, is the operator's input, not a crash.
  if (err instanceof OperatorError || err instanceof AppError) {
    process.stderr.write(`payouts: ${err.message}\n`);
    return err instanceof OperatorError ? err.exitCode : 1;
  }
  // Loaded only now: a command that ends well never needs it.
  const known = config && (await import('./startup-errors.ts')).describeStartupError(err, config);
  process.stderr.write(`payouts: ${known ?? (err instanceof Error ? err.stack : String(err))}\n`);
  return 1;
}

const outcome: ProgramOutcome = { exitCode: 0 };
buildProgram(COMMANDS, VERSION, outcome)
  .parseAsync(normalizeArgv(process.argv.slice(2), COMMANDS), { from: 'user' })
  .then(
    () => {
      if (outcome.exitCode !== undefined) process.exitCode = outcome.exitCode;
    },
    async (err: unknown) => {
      process.exitCode = await report(err, outcome.config);
    },
  );
