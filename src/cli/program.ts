// Turns the command table into a commander program: `--help`/`-h` on the program, on each group and on each
// command prints that usage and runs nothing; an unknown command or option, a missing argument or a value
// outside its choices prints the message and the usage on stderr and exits 2.
import { Command, CommanderError, Option } from 'commander';
import type { Config } from '../config.ts';
import { GROUPS, type CliCommand } from './command.ts';
import { present } from '../domain/assert.ts';

/** A usage error raised by a command's own checks (exit code 2, like the parser's). */
export const USAGE_ERROR = 'payouts.usage';

export interface ProgramOutcome {
  /** Set by the command that ran: its exit code, or undefined for a server that keeps running. */
  exitCode: number | undefined;
  /** The configuration the command ran with, for describing a failure to start. */
  config?: Config | undefined;
}

function configure(command: Command): Command {
  return command
    .helpOption('-h, --help', 'print this usage and do nothing else')
    .showHelpAfterError()
    .exitOverride()
    .addHelpCommand(false)
    .configureOutput({
      outputError: (text, write) => write(text.replace(/^error: /, 'payouts: ')),
    });
}

/** The key commander stores an option under: '--platform <id>' → 'platform'. */
function attributeOf(flags: string): string {
  return new Option(flags).attributeName();
}

function addCommand(parent: Command, entry: CliCommand, outcome: ProgramOutcome): void {
  const name = entry.path[entry.path.length - 1] ?? '';
  const command = configure(parent.command(entry.args ? `${name} ${entry.args}` : name))
    .description(entry.summary)
    .allowExcessArguments(false);
  for (const spec of entry.options ?? []) {
    const option = new Option(spec.flags, spec.description + (spec.required ? ' (required)' : ''));
    if (spec.choices) option.choices(spec.choices);
    command.addOption(option);
  }
  command.action(async (...received: unknown[]) => {
    // Commander passes the positional arguments, then the options object, then the command.
    // A variadic argument ('[ids...]') arrives as one array.
    const args = received
      .slice(0, -2)
      .flat()
      .filter((a): a is string => typeof a === 'string');
    const options = command.opts();
    const fail = (message: string): never => command.error(`payouts: ${message}`, { exitCode: 2, code: USAGE_ERROR });
    // Checked here rather than by commander, which would name a missing option before an unknown one.
    const missing = (entry.options ?? []).find((o) => o.required && options[attributeOf(o.flags)] === undefined);
    if (missing) fail(`required option '${missing.flags}' not specified`);
    // Read the environment only now: `--help` and usage errors never touch (or create) a data folder, nor
    // load what reading it takes (test/foundation/cli-start.test.ts).
    let config: Config | undefined;
    if (entry.database !== 'none') {
      const { databaseLabel, loadConfig } = await import('../config.ts');
      config = loadConfig(process.env, { existingDatabase: entry.database === 'uses' });
      outcome.config = config;
      if (entry.writes) process.stderr.write(`payouts: database: ${databaseLabel(config)}\n`);
    }
    outcome.exitCode = await entry.run({
      get config() {
        return present(config, `\`payouts ${entry.path.join(' ')}\` talks to a server and reads no server config`);
      },
      args,
      options,
      fail,
    });
  });
}

/** The program for a command table; `outcome.exitCode` holds what the command that ran returned. */
export function buildProgram(commands: readonly CliCommand[], version: string, outcome: ProgramOutcome): Command {
  const program = configure(new Command('payouts'))
    .description('A self-hostable payouts service: its server and the operator commands around it')
    .version(`payouts ${version}`, '-v, --version', 'print the version');
  const groups = new Map<string, Command>();
  for (const entry of commands) {
    const [first, second] = entry.path;
    if (second === undefined) {
      addCommand(program, entry, outcome);
      continue;
    }
    let group = groups.get(first);
    if (!group) {
      group = configure(program.command(first)).description(GROUPS[first] ?? first);
      groups.set(first, group);
    }
    addCommand(group, entry, outcome);
  }
  return program;
}

/** The exit code for a parser outcome: 0 for --help and --version, 2 for every usage error. */
export function exitCodeOf(err: CommanderError): number {
  return err.code === 'commander.helpDisplayed' || err.code === 'commander.version' ? 0 : 2;
}

export { CommanderError };
