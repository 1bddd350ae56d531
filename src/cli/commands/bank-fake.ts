// `payouts bank fake`: a bank on this machine for tests, demos and the walk-through of docs/connectors.md. It
// reads the pain.001 files the iso20022 connector drops in its outbox and answers into its inbox with
// pain.002 and camt.054 files, by the sandbox's account-number rules (src/testing/fake-bank/). `payouts bank
// fake credit` writes a credit notification, as when a payer's money arrives with a quote's reference.
import { CURRENCY_CODES } from '../../domain/currencies.ts';
import { parseDuration } from '../../domain/durations.ts';
import { FAKE_BANK_RULES, type FakeBankRules } from '../../testing/fake-bank/fates.ts';
import type { TickReport } from '../../testing/fake-bank/bank.ts';
import { stringOption, type CliCommand, type CliInput } from '../command.ts';

function durationOption(input: CliInput, name: string, flag: string): number | undefined {
  const text = stringOption(input.options, name);
  if (text === undefined) return undefined;
  const ms = parseDuration(text);
  if (ms === null) return input.fail(`${flag} takes a duration such as 0s, 90s, 30m, 2h or 3d, not "${text}"`);
  return ms;
}

function required(input: CliInput, name: string, flag: string, what: string): string {
  return stringOption(input.options, name) ?? input.fail(`${what} needs ${flag}`);
}

function print(report: TickReport): void {
  for (const file of report.read)
    process.stdout.write(
      file.refused
        ? `refused ${file.name}: ${file.refused}\n`
        : `read ${file.name}: MsgId ${file.msgId}, ${file.payments} payment${file.payments === 1 ? '' : 's'}\n`,
    );
  for (const name of report.written) process.stdout.write(`wrote ${name}\n`);
}

async function credit(input: CliInput): Promise<number> {
  const inbox = required(input, 'inbox', '--inbox', '`bank fake credit`');
  const reference = required(input, 'reference', '--reference', '`bank fake credit`');
  const amountText = required(input, 'amount', '--amount', '`bank fake credit`');
  if (!/^\d{1,18}$/.test(amountText))
    return input.fail(`--amount takes minor units (12345 for 123.45), not "${amountText}"`);
  const currency = required(input, 'currency', '--currency', '`bank fake credit`');
  if (!CURRENCY_CODES.includes(currency)) return input.fail(`--currency must be one of ${CURRENCY_CODES.join(', ')}`);
  if (reference.length > 140) return input.fail('--reference holds at most 140 characters (Ustrd)');
  const { writeCredit } = await import('../../testing/fake-bank/credit.ts');
  const name = await writeCredit({
    inbox,
    reference,
    amount: BigInt(amountText),
    currency,
    iban: stringOption(input.options, 'iban'),
    payerName: stringOption(input.options, 'payer'),
  });
  process.stdout.write(`wrote ${name}\n`);
  return 0;
}

/** Resolves at the first SIGINT or SIGTERM. */
function stopOnSignal(controller: AbortController): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => controller.abort());
}

async function bank(input: CliInput): Promise<number> {
  const outbox = required(input, 'outbox', '--outbox', '`bank fake`');
  const inbox = required(input, 'inbox', '--inbox', '`bank fake`');
  // commander has checked --rules against its choices.
  const rules = stringOption(input.options, 'rules') as FakeBankRules | undefined;
  const delayMs = durationOption(input, 'delay', '--delay');
  const returnAfterMs = durationOption(input, 'returnAfter', '--return-after');
  const pollMs = durationOption(input, 'poll', '--poll') ?? 1000;
  const { FakeBank } = await import('../../testing/fake-bank/bank.ts');
  const fake = new FakeBank({
    outbox,
    inbox,
    state: stringOption(input.options, 'state'),
    rules,
    delayMs,
    returnAfterMs,
  });
  if (input.options.once === true) {
    print(await fake.tick());
    const owed = fake.state.owed();
    if (owed > 0)
      process.stderr.write(
        `payouts: the bank owes ${owed} later answer${owed === 1 ? '' : 's'}: run it again when due\n`,
      );
    return 0;
  }
  const controller = new AbortController();
  stopOnSignal(controller);
  process.stderr.write(`payouts: fake bank reading ${outbox}, answering into ${inbox}; Ctrl-C stops\n`);
  await fake.run(controller.signal, pollMs, print);
  return 0;
}

export const bankFakeCommand: CliCommand = {
  path: ['bank', 'fake'],
  args: '[credit]',
  summary:
    'A fake bank for tests and demos: answers the pain.001 files of --outbox with pain.002 and camt.054 files in ' +
    '--inbox by the sandbox account-number rules; `bank fake credit` writes a credit notification',
  options: [
    { flags: '--outbox <dir>', description: "the connector's outbox, read for pain.001 files" },
    { flags: '--inbox <dir>', description: "the connector's inbox, where the answers go" },
    { flags: '--once', description: 'answer what is there and what is due, then exit' },
    {
      flags: '--rules <table>',
      description: 'the sandbox table to answer by (default transfer-out; quote: 003 booked later, 005 returned)',
      choices: FAKE_BANK_RULES,
    },
    {
      flags: '--delay <duration>',
      description: "for payments booked or rejected later: after this (default the table's)",
    },
    {
      flags: '--return-after <duration>',
      description: "for payments returned: this long after the booking (default the table's)",
    },
    { flags: '--poll <duration>', description: 'how often to look at the outbox (default 1s)' },
    { flags: '--state <dir>', description: 'what the bank remembers (default <outbox>/.fake-bank)' },
    { flags: '--reference <text>', description: 'credit: the remittance reference (a quote payment reference)' },
    { flags: '--amount <minor>', description: 'credit: the amount in minor units' },
    { flags: '--currency <code>', description: 'credit: the currency' },
    { flags: '--iban <iban>', description: 'credit: our account credited (default DE89370400440532013000)' },
    { flags: '--payer <name>', description: "credit: the payer's name" },
  ],
  database: 'none',
  writes: false,
  async run(input) {
    const [action] = input.args;
    if (action !== undefined && action !== 'credit')
      return input.fail(`\`bank fake\` takes \`credit\` or nothing, not "${action}"`);
    return action === 'credit' ? credit(input) : bank(input);
  },
};
