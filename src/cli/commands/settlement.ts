import { readFileSync } from 'node:fs';
import { ENVIRONMENTS, type Environment } from '../../domain/environments.ts';
import { FAILURE_REASONS, isFailureReason } from '../../domain/failure-reasons.ts';
import { parseDuration } from '../../domain/durations.ts';
import type { Selection, SettlementAction, SettlementLine } from '../../services/settlement.ts';
import { stringOption, type CliCommand, type CliInput, type CliOption } from '../command.ts';
import { withServices } from '../services.ts';

/** A run by filter touches at most this many payments unless --limit says otherwise. */
const DEFAULT_LIMIT = 1000;

const SELECTION_OPTIONS: CliOption[] = [
  { flags: '--ids-file <file>', description: 'transaction ids, one a line (or - for standard input)' },
  {
    flags: '--status <status>',
    description: 'select by filter: every held payment in this status',
    choices: ['PROCESSING'],
  },
  { flags: '--older-than <age>', description: 'with --status: in it for at least this long (90s, 30m, 2h, 1d)' },
  { flags: '--platform <id>', description: 'with --status: only this platform' },
  {
    flags: '--env <environment>',
    description: 'with --status: this environment (default production)',
    choices: ENVIRONMENTS,
  },
  { flags: '--limit <n>', description: `with --status: at most this many (default ${DEFAULT_LIMIT})` },
  { flags: '--dry-run', description: 'say what would happen, change nothing' },
];

/** The ids given as arguments and in --ids-file, or the filter; never both, never neither. */
function selectionOf({ args, options, fail }: CliInput): Selection {
  const file = stringOption(options, 'idsFile');
  const fromFile = file === undefined ? [] : readFileSync(file === '-' ? 0 : file, 'utf8').split(/\s+/);
  const ids = [...args, ...fromFile].filter((id) => id !== '');
  const status = stringOption(options, 'status');
  if (ids.length > 0 && status) return fail('give transaction ids or --status, not both');
  if (ids.length > 0) return { ids };
  if (!status) return fail('give transaction ids (arguments or --ids-file) or select them with --status PROCESSING');
  const olderThan = stringOption(options, 'olderThan');
  const olderThanMs = olderThan === undefined ? undefined : parseDuration(olderThan);
  if (olderThanMs === null) return fail(`--older-than takes an age such as 90s, 30m, 2h or 1d, not "${olderThan}"`);
  const limitText = stringOption(options, 'limit');
  const limit = limitText === undefined ? DEFAULT_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1) return fail('--limit takes a whole number from 1');
  // commander has checked it against ENVIRONMENTS (the option's choices).
  const environment = stringOption(options, 'env') as Environment | undefined;
  return { olderThanMs, platformId: stringOption(options, 'platform'), environment, limit };
}

/**
 * Settles or fails the payments selected: a JSON line per payment on stdout (the report), refusals named on
 * stderr, totals last. Exits 1 when any payment was refused.
 */
async function run(action: SettlementAction, input: CliInput): Promise<number> {
  const selection = selectionOf(input);
  const reasonText = stringOption(input.options, 'reason');
  if (reasonText !== undefined && !isFailureReason(reasonText))
    return input.fail(`--reason must be one of ${FAILURE_REASONS.join(', ')}`);
  const request = { action, reason: reasonText, dryRun: input.options.dryRun === true, selection };
  const lines: SettlementLine[] = [];
  // Loaded by the command that runs, not for every command's --help (test/foundation/cli-start.test.ts).
  const { settleMany, summarize } = await import('../../services/settlement.ts');
  await withServices(input.config, async ({ services }) => {
    for await (const line of settleMany(services.ctx, services.transactions, request)) {
      lines.push(line);
      process.stdout.write(`${JSON.stringify(line)}\n`);
      if (line.error) process.stderr.write(`payouts: ${line.id}: ${line.error.message}\n`);
    }
  });
  const totals = Object.entries(summarize(lines)).filter(([, n]) => n > 0);
  process.stderr.write(`payouts: ${totals.map(([result, n]) => `${n} ${result}`).join(', ') || 'nothing selected'}\n`);
  return lines.some((line) => line.result === 'REFUSED') ? 1 : 0;
}

export const settlementCommands: CliCommand[] = [
  {
    path: ['transactions', 'settle'],
    args: '[ids...]',
    summary: 'the rail paid out: complete PROCESSING transactions (by id, or by filter), a JSON line each',
    options: SELECTION_OPTIONS,
    database: 'uses',
    writes: true,
    run: (input) => run('settle', input),
  },
  {
    path: ['transactions', 'fail'],
    args: '[ids...]',
    summary: 'the rail failed: fail PROCESSING transactions and refund the payers, a JSON line each',
    options: [
      { flags: '--reason <reason>', description: 'a public failure reason (default COUNTERPARTY_POST_TX_FAILED)' },
      ...SELECTION_OPTIONS,
    ],
    database: 'uses',
    writes: true,
    run: (input) => run('fail', input),
  },
];
