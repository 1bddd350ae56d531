// The command line is a table: each command is one entry saying its words, arguments, options, whether it
// may set a database up, and what it runs. program.ts turns the table into a parser (commander), which
// gives every command and group its own --help and refuses unknown options; adding a command is adding an
// entry to table.ts.
import type { Config } from '../config.ts';

export interface CliOption {
  /** Commander syntax: '--name <name>', '--json', '--reason <reason>'. */
  flags: string;
  description: string;
  required?: boolean;
  /** The only values accepted; anything else is a usage error naming them. */
  choices?: readonly string[];
  /** The server variable this option sets: given, it wins over the environment's (`serve --port` over PORT). */
  variable?: 'PORT' | 'HOST';
}

export interface CliInput {
  config: Config;
  /** The positional arguments, in the order the entry's `args` names them. */
  args: string[];
  options: Record<string, unknown>;
  /** A usage error: the message, one line on stderr (no usage dump), exit code 2. */
  fail(message: string): never;
}

export interface CliCommand {
  /** The words that name it: ['serve'], ['transactions', 'settle']. */
  path: readonly [string] | readonly [string, string];
  /** Positional arguments in commander syntax: '<id>', '<file>'. */
  args?: string;
  summary: string;
  options?: readonly CliOption[];
  /**
   * 'creates': may set the database up where there is none (serve, migrate, restore). 'uses': works on the
   * server's existing database, and refuses to start where there is none. 'none': talks to a running server
   * over HTTP (api-client.ts) and reads no server configuration; its `config` must not be read.
   */
  database: 'creates' | 'uses' | 'none';
  /** Writes to the database: says on stderr which database it used. */
  writes: boolean;
  /** The exit code; a server returns undefined and keeps the process running. */
  run(input: CliInput): Promise<number | undefined>;
}

/** What the first word of a group means, for `payouts GROUP --help`. */
export const GROUPS: Record<string, string> = {
  platforms: 'platforms (tenants) and their credentials',
  tokens: 'API tokens of a platform',
  ledger: 'the double-entry ledger',
  accounts: 'external accounts (operator review)',
  transactions: 'the production rail, operated by hand',
  bank: "ISO 20022 bank files: pain.001 out to the bank, the bank's answers in",
  keys: 'the server key (SECRET_KEY) and its rotation',
  logs: "a sandbox workspace's request log, over the API of a running server",
};

/** Reads a string option (commander gives undefined when it was not passed). */
export function stringOption(options: Record<string, unknown>, name: string): string | undefined {
  const value = options[name];
  return typeof value === 'string' ? value : undefined;
}
