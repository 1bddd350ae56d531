// The ISO 20022 bank-file connectors, operated from the command line: exports of pain.001 files on demand
// (the worker exports at each cut-off by itself).
import { currency } from '../../domain/currencies.ts';
import { formatAmount } from '../../rails/iso20022/pain001.ts';
import type { ExportedFile } from '../../services/bank/index.ts';
import { stringOption, type CliCommand } from '../command.ts';
import { withServices } from '../services.ts';

/** One line for a person: state, file, currency, count, total, where it is (and why, when refused). */
export function fileLine(file: ExportedFile): string {
  const total = formatAmount(BigInt(file.ctrlSum), currency(file.currency).decimals);
  const count = `${file.nbOfTxs} payment${file.nbOfTxs === 1 ? '' : 's'}`;
  const base = `${file.state} ${file.connector} ${file.name} ${file.currency} ${total} ${count} ${file.path}`;
  return file.state === 'RELEASED' ? base : `${base} (${file.heldBack} held back: ${file.error})`;
}

export const bankCommands: CliCommand[] = [
  {
    path: ['bank', 'export'],
    summary: 'gather the payments waiting for a bank file into pain.001 files now; one line per file',
    options: [
      { flags: '--connector <name>', description: 'only this iso20022 connector (default: every one)' },
      { flags: '--json', description: 'one JSON object per file instead of a line of text' },
    ],
    database: 'uses',
    writes: true,
    async run({ config, options, fail }) {
      const connector = stringOption(options, 'connector');
      const names = Object.keys(config.connectors.banks);
      if (names.length === 0) return fail('CONNECTORS_FILE names no iso20022 connector: there is nothing to export');
      if (connector !== undefined && !names.includes(connector))
        return fail(`--connector ${connector} is not an iso20022 connector of CONNECTORS_FILE (${names.join(', ')})`);
      const files = await withServices(config, ({ services }) => services.bank.export(connector));
      for (const file of files) process.stdout.write(`${options.json ? JSON.stringify(file) : fileLine(file)}\n`);
      if (files.length === 0 && !options.json) process.stderr.write('no payment waits for a bank file\n');
      return files.some((f) => f.state === 'REFUSED') ? 1 : 0;
    },
  },
];
