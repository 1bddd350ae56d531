// What comes back from the bank-file connectors, as a service: files ingested on demand (`payouts bank
// ingest FILE…`), each connector's inbox watched by the worker, and the credits the bank booked (the
// unmatched list among them) for an operator.
import type { Logger } from 'pino';
import type { Iso20022ConnectorSettings } from '../../domain/connector-routes.ts';
import { invalidInput, notFound } from '../../domain/errors.ts';
import type { BankCreditsTable } from '../../store/schema.ts';
import { ingestInbox } from './inbox.ts';
import {
  type CreditFilter,
  describeOutcome,
  type IngestDeps,
  type IngestOutcome,
  ingestFile,
  listCredits,
} from './ingest.ts';

export type { IngestOutcome } from './ingest.ts';
export { describeOutcome } from './ingest.ts';

export interface BankIncomingService {
  /**
   * Ingests files the bank sent, in the order given, into `connector` (which may be left out when there is
   * one bank connector). Raises INVALID_INPUT (no connector named among several) and REFERENCE_NOT_FOUND.
   */
  ingest(files: readonly string[], connector?: string): Promise<IngestOutcome[]>;
  /** One pass over every bank connector's inbox (the worker's chore, callable by hand). */
  ingestInboxes(): Promise<IngestOutcome[]>;
  /** The credits the bank booked, newest first. */
  credits(filter: CreditFilter): Promise<BankCreditsTable[]>;
}

export function makeBankIncomingService(deps: IngestDeps, log: Logger): BankIncomingService {
  const banks = deps.ctx.config.connectors.banks;
  const settingsOf = (connector: string | undefined): Iso20022ConnectorSettings => {
    const names = Object.keys(banks);
    const name = connector ?? (names.length === 1 ? names[0] : undefined);
    if (name === undefined)
      throw invalidInput(
        'connector',
        names.length === 0
          ? 'no iso20022 connector is configured (CONNECTORS_FILE)'
          : `name the connector the files came to: one of ${names.join(', ')}`,
        'required',
      );
    const settings = banks[name];
    if (!settings) throw notFound('Bank connector', name, 'REFERENCE_NOT_FOUND');
    return settings;
  };
  const ingestInboxes = async () => {
    const all: IngestOutcome[] = [];
    for (const settings of Object.values(banks)) {
      for (const outcome of await ingestInbox(deps, settings)) {
        const line = describeOutcome(outcome);
        if (outcome.outcome === 'REFUSED') log.warn({ connector: settings.name, file: outcome.file }, line);
        else log.info({ connector: settings.name, file: outcome.file }, line);
        all.push(outcome);
      }
    }
    return all;
  };
  // Each connector's inbox on its own interval: the smallest is the pass's.
  const pollMs = Math.min(...Object.values(banks).map((b) => b.inboxPollMs));
  if (Number.isFinite(pollMs)) deps.worker.every(pollMs, ingestInboxes);
  return {
    async ingest(files, connector) {
      const settings = settingsOf(connector);
      const outcomes: IngestOutcome[] = [];
      for (const file of files) outcomes.push(await ingestFile(deps, settings, file));
      return outcomes;
    },
    ingestInboxes,
    credits: (filter) => listCredits(deps.ctx, filter),
  };
}
