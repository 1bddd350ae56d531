// The ISO 20022 bank-file connectors of CONNECTORS_FILE (type iso20022): their exports of pain.001 files,
// on demand (`payouts bank export`) and at each cut-off (a worker chore), and the recovery of an export a
// crash cut short. One export per connector at a time, across processes (lock.ts).
import type { Logger } from 'pino';
import type { CutOff, Iso20022ConnectorSettings } from '../../domain/connector-routes.ts';
import { AppError, notFound } from '../../domain/errors.ts';
import type { JobWorker } from '../../jobs/worker.ts';
import { type Ctx, wallNowMs } from '../../context.ts';
import { exportConnector, type ExportedFile } from './export.ts';
import { tryExportLock, type ExportLock } from './lock.ts';
import { recoverConnector, type Recovered } from './recover.ts';

export type { ExportedFile } from './export.ts';

/** How often a worker looks for a passed cut-off and for an export to recover. */
export const BANK_CHORE_EVERY_MS = 15_000;
/** How long an export on demand waits for another export of the connector to finish. */
const LOCK_WAIT_MS = 30_000;
const DAY_MS = 86_400_000;

export interface BankService {
  /** The bank-file connectors CONNECTORS_FILE names. */
  names(): string[];
  /**
   * Gathers every payment waiting for a file of `connector` (all bank connectors when none is named) into
   * pain.001 files: released or refused, one line each. Raises REFERENCE_NOT_FOUND for a name that is no bank
   * connector, CONFLICT when another export of it still runs after a wait.
   */
  export(connector?: string): Promise<ExportedFile[]>;
  /** Puts right what a crashed export left (recover.ts), for every bank connector. */
  recover(): Promise<Recovered[]>;
}

/** The latest cut-off instant at or before `nowMs` (today's or yesterday's, UTC), or undefined without cut-offs. */
export function lastCutOffAt(cutOffs: readonly CutOff[], nowMs: number): number | undefined {
  const midnight = nowMs - (nowMs % DAY_MS);
  const instants = cutOffs
    .flatMap((c) => [midnight, midnight - DAY_MS].map((day) => day + (c.hour * 60 + c.minute) * 60_000))
    .filter((at) => at <= nowMs);
  return instants.length === 0 ? undefined : Math.max(...instants);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForLock(
  ctx: Ctx,
  settings: Iso20022ConnectorSettings,
  waitMs: number,
): Promise<ExportLock | undefined> {
  const until = wallNowMs(ctx) + waitMs;
  for (;;) {
    const lock = tryExportLock(settings.outbox);
    if (lock || wallNowMs(ctx) >= until) return lock;
    await sleep(100);
  }
}

export function makeBankService(ctx: Ctx, worker: JobWorker, log: Logger): BankService {
  const banks = ctx.config.connectors.banks;
  const named = (connector: string | undefined): Iso20022ConnectorSettings[] => {
    if (connector === undefined) return Object.values(banks);
    const settings = banks[connector];
    if (!settings) throw notFound('Bank connector', connector, 'REFERENCE_NOT_FOUND');
    return [settings];
  };

  /** Under the connector's lock: recovery first, then the export of what was routed by `before`. */
  async function locked(settings: Iso20022ConnectorSettings, lock: ExportLock, before: number | undefined) {
    try {
      const recovered = await recoverConnector(ctx, settings);
      for (const { name, why } of recovered.unrecoverable)
        log.error({ connector: settings.name, file: name }, `bank file not placed: ${why}`);
      const files = before === undefined ? [] : await exportConnector(ctx, settings, before);
      return { recovered, files };
    } finally {
      lock.release();
    }
  }

  // The cut-off each connector last exported at, in this process.
  const exportedAt = new Map<string, number>();
  async function chore(): Promise<void> {
    for (const settings of Object.values(banks)) {
      const lock = tryExportLock(settings.outbox);
      if (!lock) continue;
      const cutOff = lastCutOffAt(settings.cutOffs, wallNowMs(ctx));
      const due = cutOff !== undefined && exportedAt.get(settings.name) !== cutOff;
      const { files } = await locked(settings, lock, due ? cutOff : undefined);
      if (due) exportedAt.set(settings.name, cutOff);
      for (const file of files) log.info({ file }, `bank file ${file.state.toLowerCase()}: ${file.name}`);
    }
  }
  if (Object.keys(banks).length > 0) worker.every(BANK_CHORE_EVERY_MS, chore);

  return {
    names: () => Object.keys(banks),
    async export(connector) {
      const files: ExportedFile[] = [];
      for (const settings of named(connector)) {
        const lock = await waitForLock(ctx, settings, LOCK_WAIT_MS);
        if (!lock) throw new AppError('CONFLICT', `Another export of ${settings.name} is still running; try again`);
        files.push(...(await locked(settings, lock, wallNowMs(ctx))).files);
      }
      return files;
    },
    async recover() {
      const all: Recovered[] = [];
      for (const settings of Object.values(banks)) {
        const lock = await waitForLock(ctx, settings, LOCK_WAIT_MS);
        if (lock) all.push((await locked(settings, lock, undefined)).recovered);
      }
      return all;
    },
  };
}
