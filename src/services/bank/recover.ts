// What an export interrupted by a crash left, put right before the next export of the connector runs (under
// its export lock, so no export is writing meanwhile):
// - a file recorded RELEASED but not yet placed in the outbox (applied_at null): placed from its temp copy
//   when that copy is whole (its sha256 is the recorded one), else written again from its rows and placed
//   only if it comes out byte for byte the same; a file already in the outbox is only marked placed. A placed
//   file is never placed again: the bank may have taken it from the outbox;
// - payments claimed for a file that was never released: given back to the batch;
// - temp files of files never released: removed.
import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Iso20022ConnectorSettings } from '../../domain/connector-routes.ts';
import { present } from '../../domain/assert.ts';
import { type Ctx, wallNowMs } from '../../context.ts';
import { groupOf, place, sha256Of, tmpDir, writeFileOf } from './export.ts';

/** What a recovery did: files placed, and files it could not place (their bytes would differ). */
export interface Recovered {
  placed: string[];
  unrecoverable: { name: string; why: string }[];
  unclaimed: number;
}

/** Released files not yet placed, oldest first (a bound: a crash leaves one, at most a few). */
const MAX_FILES_RECOVERED = 100;

export async function recoverConnector(ctx: Ctx, settings: Iso20022ConnectorSettings): Promise<Recovered> {
  const { db } = ctx.store;
  const result: Recovered = { placed: [], unrecoverable: [], unclaimed: 0 };
  const unplaced = await db
    .selectFrom('bank_files')
    .selectAll()
    .where('connector', '=', settings.name)
    .where('direction', '=', 'OUT')
    .where('state', '=', 'RELEASED')
    .where('applied_at', 'is', null)
    .orderBy('created_at')
    .limit(MAX_FILES_RECOVERED)
    .execute();
  const keep = new Set<string>();
  for (const file of unplaced) {
    const finalPath = join(settings.outbox, file.name);
    const tempPath = join(tmpDir(settings), file.name);
    if (existsSync(finalPath)) {
      // Renamed before the crash, only not yet marked.
      await db
        .updateTable('bank_files')
        .set({ applied_at: BigInt(wallNowMs(ctx)) })
        .where('id', '=', file.id)
        .execute();
      continue;
    }
    if (!existsSync(tempPath) || (await sha256Of(tempPath)) !== file.sha256) {
      const group = groupOf(settings, {
        ...file,
        currency: present(file.currency, 'an outgoing file has a currency'),
        nbOfTxs: Number(file.nb_of_txs),
        ctrlSum: file.ctrl_sum ?? 0n,
      });
      const { written } = await writeFileOf(ctx, file.id, group, tempPath).catch((err: unknown) => ({
        written: { sha256: `not written: ${err instanceof Error ? err.message : String(err)}` },
      }));
      if (written.sha256 !== file.sha256) {
        keep.add(file.name);
        result.unrecoverable.push({
          name: file.name,
          why: `written again, it is not the file released (${written.sha256})`,
        });
        continue;
      }
    }
    await place(ctx, settings, file.id, file.name);
    result.placed.push(file.name);
  }
  // Claimed, never released: the release sets a claimed payment's rail row PENDING in its own transaction.
  const unclaimed = await db
    .updateTable('rail_payments')
    .set({ bank_file_id: null })
    .where('connector', '=', settings.name)
    .where('state', '=', 'BATCHING')
    .where('bank_file_id', 'is not', null)
    .executeTakeFirst();
  result.unclaimed = Number(unclaimed.numUpdatedRows);
  for (const name of await readdir(tmpDir(settings))) {
    if (name.endsWith('.xml') && !keep.has(name)) await rm(join(tmpDir(settings), name), { force: true });
  }
  return result;
}
