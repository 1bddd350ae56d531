// Turns the command table into a commander program: `--help`/`-h` on the program, on each group and on each
// command prints that usage and runs nothing (so do `payouts help [group] [command]`); an unknown command or
// option, a missing argument or a value outside its choices prints ONE line on stderr, with the closest match
// when there is one, and exits 2. No usage follows it: forty lines of usage scroll the one that matters away.
import { Command, CommanderError, Option } from 'commander';
import type { Config } from '../config.ts';
import { GROUPS, type CliCommand, type CliOption } from './command.ts';
import { present } from '../domain/assert.ts';

/** A usage error raised by a command's own checks (exit code 2, like the parser's). */
export const USAGE_ERROR = 'payouts.usage';

export interface ProgramOutcome {
  /** Set by the command that ran: its exit code, or undefined for a server that keeps running. */
  exitCode: number | undefined;
  /** The configuration the command ran with, for describing a failure to start. */
  config?: Config | undefined;
}

/** `payouts tokens create`: the words that name a command, for a hint that points at its --help. */
function commandLine(command: Command): string {
  const words: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) words.unshift(at.name());
  return words.join(' ');
}

/**
 * Commander's message as one line: "unknown option '--prot'\n(Did you mean --port?)" becomes
 * "payouts: unknown option '--prot' (did you mean --port?)". Without a suggestion, the line says where the
 * usage is. A command's own usage error (fail(), already 'payouts: …') is left as it is.
 */
export function oneLineError(text: string, command: Command): string {
  if (!text.startsWith('error: ')) return text.endsWith('\n') ? text : `${text}\n`;
  const [first = '', ...rest] = text.slice('error: '.length).trim().split('\n');
  const suggestion = /^\(Did you mean (.+)\?\)$/.exec(rest.join(' ').trim())?.[1];
  const hint = suggestion ? `did you mean ${suggestion}?` : `see \`${commandLine(command)} --help\``;
  return `payouts: ${first.replace(/\.$/, '')} (${hint})\n`;
}

function configure(command: Command): Command {
  return command
    .helpOption('-h, --help', 'print this usage and do nothing else')
    .exitOverride()
    .addHelpCommand(false)
    .configureOutput({ outputError: (text, write) => write(oneLineError(text, command)) });
}

/** The key commander stores an option under: '--platform <id>' → 'platform'. */
function attributeOf(flags: string): string {
  return new Option(flags).attributeName();
}

/** The environment with what the options that set a server variable were given (`--port 31085` → PORT). */
function withOptionVariables(
  env: NodeJS.ProcessEnv,
  specs: readonly CliOption[],
  options: Record<string, unknown>,
): NodeJS.ProcessEnv {
  const given = specs.flatMap((spec) => {
    const value = options[attributeOf(spec.flags)];
    return spec.variable && typeof value === 'string' ? [[spec.variable, value]] : [];
  });
  return given.length === 0 ? env : { ...env, ...Object.fromEntries(given) };
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
      config = loadConfig(withOptionVariables(process.env, entry.options ?? [], options), {
        existingDatabase: entry.database === 'uses',
      });
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
    .version(`payouts ${version}`, '-V, --version', 'print the version (also `payouts version`)')
    .helpCommand('help [command...]', 'print the usage of a command or group (the same as COMMAND --help)');
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

/**
 * The spellings people try first, as commander reads them: nothing or `help` → `--help`, `help tokens create`
 * → `tokens create --help` (also `tokens help create`), `version` or `-v` → `--version`. Commander's own help
 * command would show only the first word's usage (`help tokens create` → the group's).
 */
export function normalizeArgv(argv: readonly string[], commands: readonly CliCommand[]): string[] {
  const [first, second] = argv;
  const groups = new Set(commands.flatMap((entry) => (entry.path.length === 2 ? [entry.path[0]] : [])));
  const known = new Set(commands.map((entry) => entry.path[0]));
  if (first === undefined) return ['--help'];
  if (argv.length === 1 && (first === 'version' || first === '-v')) return ['--version'];
  // `help serv`: the unknown word alone, so that the error names it with the closest match.
  if (first === 'help') return second === undefined || known.has(second) ? [...argv.slice(1), '--help'] : [second];
  if (second === 'help' && groups.has(first)) return [first, ...argv.slice(2), '--help'];
  return [...argv];
}

/** The exit code for a parser outcome: 0 for --help and --version, 2 for every usage error. */
export function exitCodeOf(err: CommanderError): number {
  return err.code === 'commander.helpDisplayed' || err.code === 'commander.version' ? 0 : 2;
}

export { CommanderError };
