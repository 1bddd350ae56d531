/**
 * The worker exports at each cut-off by itself: a payout routed before the cut-off waits PENDING until the
 * cut-off passes on the server's clock, then leaves in a file. The server runs on a clock the test moves.
 * On the engine under test.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { useServer, type TestPlatform } from '../helpers/harness.ts';
import { before, describe, it } from '../helpers/node-test.ts';
import { tempDir } from '../helpers/temp-dirs.ts';
import { waitFor } from '../helpers/wait.ts';
import { bankConnectorsFile, eurPayout, fundedEurCustomer } from './fixtures.ts';

describe('the cut-off chore', () => {
  // Today 11:00 UTC on the server's clock; the cut-off is at 12:00.
  const day = new Date();
  let nowMs = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), 11, 0, 0);
  const clock = { nowMs: () => nowMs };
  const folders = bankConnectorsFile(tempDir('bank-cutoff'), { cutOffs: ['12:00'] });
  const server = useServer({ CONNECTORS_FILE: folders.file, JOB_POLL_MS: '50' }, { clock });
  let p: TestPlatform;
  before(async () => {
    p = await server.platform('cutoff');
  });

  it('exports at the cut-off, and not before', async () => {
    const payer = await fundedEurCustomer(server, p, 100_000);
    const id = await eurPayout(server, p, payer, 2_500);
    const status = async () => (await p.prod.get(`/transactions/${id}`)).body.status as string;
    // Passes of the worker before the cut-off: nothing leaves.
    nowMs += 20_000;
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(await status(), 'PENDING', 'before the cut-off it waits');
    assert.deepEqual(
      readdirSync(folders.outbox).filter((n) => n.endsWith('.xml')),
      [],
    );
    nowMs += 3_600_000; // 12:00:20
    await waitFor(async () => (await status()) === 'PROCESSING', 'the cut-off export', 30_000, 50);
    assert.equal(readdirSync(folders.outbox).filter((n) => n.endsWith('.xml')).length, 1, 'one file');
  });
});
