import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useServer, type TestPlatform } from '../helpers/harness.ts';
import { loadConfig } from '../../src/config.ts';
import { runCli } from '../helpers/processes.ts';
import { tempDir } from '../helpers/temp-dirs.ts';

describe('production rates come only from the operator', () => {
  const dir = tempDir('rates');
  const ratesFile = join(dir, 'rates.json');
  writeFileSync(
    ratesFile,
    JSON.stringify({ unitsPerUsd: { USD: '1', EUR: '0.9' }, fees: { USD: { fixedMinor: 25, variableBps: 20 } } }),
  );
  let p: TestPlatform;
  const server = useServer({ RUN_WORKERS: 'false', RATES_FILE: ratesFile });
  before(async () => {
    p = await server.platform();
  });

  it('prices production quotes with RATES_FILE, and offers only the pairs it covers', async () => {
    const usd = (await p.prod.get('/platform/internal-accounts?currency=USD')).body.data[0];
    const rates = await p.prod.get('/exchange-rates?sourceCurrency=USD');
    assert.deepEqual(
      rates.body.data.map((r: any) => [r.destinationCurrency.code, r.exchangeRate, r.fees.fixed]),
      [['EUR', 0.9, 25]],
    );
    assert.equal(
      (await p.prod.get('/exchange-rates?sourceCurrency=EUR')).body.data.length,
      0,
      'no fee schedule for EUR senders',
    );

    const account = await p.prod.post('/platform/external-accounts', {
      currency: 'EUR',
      accountInfo: {
        accountType: 'EUR_ACCOUNT',
        iban: 'DE89370400440532013000',
        beneficiary: {
          beneficiaryType: 'INDIVIDUAL',
          fullName: 'Ops',
          address: { line1: 'x', postalCode: '1', country: 'DE' },
        },
      },
    });
    await server.app.services.externalAccounts.activate(account.body.id); // the operator's review
    const quote = await p.prod.post('/quotes', {
      source: { sourceType: 'ACCOUNT', accountId: usd.id },
      destination: { destinationType: 'ACCOUNT', accountId: account.body.id },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10_000,
    });
    assert.equal(quote.status, 201, JSON.stringify(quote.body));
    // fees 25 + 0.2 % of 10 000 = 45; (10 000 − 45) × 0.9 = 8 959.5 → 8 959
    assert.equal(quote.body.feesIncluded, 45);
    assert.equal(quote.body.totalReceivingAmount, 8_959);
    // The sandbox keeps its own fixed table.
    const sandboxRates = await p.api.get('/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR');
    assert.equal(sandboxRates.body.data[0].exchangeRate, 0.92);
  });

  it('refuses a bad rates file at start, naming the entry', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ unitsPerUsd: { EUR: 'zero point nine' }, fees: {} }));
    assert.throws(() => loadConfig({ DATA_DIR: dir, RATES_FILE: bad }), /unitsPerUsd\.EUR/);
    writeFileSync(bad, JSON.stringify({ unitsPerUsd: {}, fees: { USD: { fixedMinor: -1, variableBps: 0 } } }));
    assert.throws(() => loadConfig({ DATA_DIR: dir, RATES_FILE: bad }), /fees\.USD\.fixedMinor/);
    const refused = await runCli(['migrate'], { ...process.env, DATA_DIR: dir, RATES_FILE: join(dir, 'missing.json') });
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /RATES_FILE/);
  });
});
