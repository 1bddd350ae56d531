import { resolve } from 'node:path';
import { stringOption, type CliCommand } from '../command.ts';
import { withServices } from '../services.ts';

/**
 * `payouts bank ingest FILE…`: status reports and notifications the bank sent, applied as the inbox watcher
 * applies them: a line per file (applied, already applied, refused and why). Exits 1 when any was refused.
 */
export const bankIngestCommand: CliCommand = {
  path: ['bank', 'ingest'],
  args: '<files...>',
  summary: "apply the bank's pain.002 and camt.054 files (each once, whole, or refused with why): a line each",
  options: [
    {
      flags: '--connector <name>',
      description: 'the iso20022 connector the files came to (needed when there are several)',
    },
    { flags: '--json', description: 'a JSON line per file instead' },
  ],
  database: 'uses',
  writes: true,
  async run({ config, args, options, fail }) {
    const connector = stringOption(options, 'connector');
    const names = Object.keys(config.connectors.banks);
    if (names.length === 0) return fail('no iso20022 connector is configured (CONNECTORS_FILE)');
    if (connector === undefined && names.length > 1)
      return fail(`name the connector the files came to with --connector: one of ${names.join(', ')}`);
    if (connector !== undefined && !names.includes(connector))
      return fail(`--connector ${connector} is no iso20022 connector; configured: ${names.join(', ')}`);
    const { describeOutcome } = await import('../../services/bank/incoming.ts');
    let refused = 0;
    await withServices(config, async ({ services }) => {
      for (const file of args) {
        const [outcome] = await services.bankIncoming.ingest([resolve(file)], connector);
        if (!outcome) continue;
        if (outcome.outcome === 'REFUSED') refused += 1;
        const line =
          options.json === true
            ? JSON.stringify(outcome, (_k, v) => (typeof v === 'bigint' ? Number(v) : v))
            : describeOutcome(outcome);
        (outcome.outcome === 'REFUSED' ? process.stderr : process.stdout).write(`${line}\n`);
      }
    });
    return refused > 0 ? 1 : 0;
  },
};
