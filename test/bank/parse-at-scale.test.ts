// A 100,000-entry camt.054 is read as a stream: what the heap holds while it is read (measured after a full
// collection, every 10,000 entries) stays within a bound far below the file's size. A reader that held the
// document, or its entries, would pass the bound many times over.
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { readCamt054 } from '../../src/rails/iso20022/camt054.ts';
import { writeCamt054 } from '../helpers/bank-files.ts';
import { xmllintValidates } from '../helpers/iso20022.ts';
import { describe, it } from '../helpers/node-test.ts';
import { tempDir } from '../helpers/temp-dirs.ts';

const ENTRIES = 100_000;
/** What the heap may hold beyond what it held before: a chunk's items, the parser, the stream's buffers. */
const HEAP_BOUND_BYTES = 8 * 1024 * 1024;

/** A full collection on demand, so that what is measured is what is held, not garbage not yet collected. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

describe('camt.054 at scale', () => {
  it(`reads ${ENTRIES.toLocaleString('en')} entries with the heap flat`, { timeout: 300_000 }, async () => {
    const file = join(tempDir('camt054-scale'), 'big.xml');
    await writeCamt054(file, {
      msgId: 'NTF-BIG',
      iban: 'DE89370400440532013000',
      count: ENTRIES,
      entry: (i) => ({
        key: `BANK-${i}`,
        direction: i % 10 === 0 ? 'CRDT' : 'DBIT',
        amount: `${1 + (i % 5000)}.${String(i % 100).padStart(2, '0')}`,
        endToEndId: i.toString(16).padStart(32, '0'),
        ...(i % 10 === 0 ? { reference: `PAY-${i.toString(16).toUpperCase().padStart(12, '0')}` } : {}),
      }),
    });
    const size = statSync(file).size;
    assert.ok(size > 4 * HEAP_BOUND_BYTES, `the file (${size} bytes) is larger than four times the bound`);
    const check = await xmllintValidates('camt.054.001.08.xsd', file);
    assert.ok(check.ok, check.output.slice(0, 2000));

    const gc = collector();
    gc();
    const base = process.memoryUsage().heapUsed;
    let peak = 0;
    let entries = 0;
    let sum = 0n;
    let lastKey = '';
    for await (const item of readCamt054(file)) {
      if (item.kind !== 'ENTRY') continue;
      entries += 1;
      sum += item.amount;
      lastKey = item.entryKey;
      if (entries % 10_000 === 0) {
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed - base);
      }
    }
    assert.equal(entries, ENTRIES);
    assert.equal(lastKey, `BANK-${ENTRIES - 1}`);
    let expected = 0n;
    for (let i = 0; i < ENTRIES; i++) expected += BigInt(1 + (i % 5000)) * 100n + BigInt(i % 100);
    assert.equal(sum, expected, 'every amount read exactly');
    assert.ok(
      peak < HEAP_BOUND_BYTES,
      `the heap held ${(peak / 1048576).toFixed(1)} MB more while reading a ${(size / 1048576).toFixed(1)} MB file`,
    );
  });
});
