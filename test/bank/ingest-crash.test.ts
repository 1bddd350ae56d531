/**
 * kill -9 of the server while it applies a big camt.054 from its inbox: the file's one transaction never
 * commits, so nothing of it is applied and the file stays in the inbox; a new server on the same database
 * applies it, exactly once: each quote its credits name funded once, each entry recorded once, the file
 * moved to processed/, and the ledger verifies. Processes all the way, on the engine under test.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { client, createTestDatabase, type TestDatabase } from '../helpers/harness.ts';
import { writeCamt054, type EntrySpec } from '../helpers/bank-files.ts';
import { after, before, describe, it } from '../helpers/node-test.ts';
import { runCliOk, spawnServer, type ServerProcess } from '../helpers/processes.ts';
import { tempDir } from '../helpers/temp-dirs.ts';
import { bankConnectorsFile, eurRatesFile } from './fixtures.ts';
import { waitFor } from '../helpers/wait.ts';

const DEBTOR = 'DE89370400440532013000';
/** Entries in the file: enough that applying them takes seconds, the window the server is killed in. */
const ENTRIES = 40_000;
const QUOTES = 10;

/** Whether an xmllint process is validating `file` now (read from /proc: the server's child). */
function validating(file: string): boolean {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmdline.startsWith('xmllint') && cmdline.includes(file)) return true;
    } catch {
      // gone meanwhile
    }
  }
  return false;
}

describe('kill -9 during a bank file ingest', () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  const servers: ServerProcess[] = [];
  const dir = tempDir('bank-crash');
  const inbox = join(dir, 'inbox');

  before(async () => {
    database = await createTestDatabase();
    const ratesFile = eurRatesFile(dir, { fixedMinor: 25, variableBps: 20 });
    const connectorsFile = bankConnectorsFile(dir, { inboxPollMs: 200 }).file;
    env = { ...database.env, RATES_FILE: ratesFile, CONNECTORS_FILE: connectorsFile };
  });
  after(async () => {
    for (const server of servers) await server.stop();
    await database?.drop();
  });

  const cli = (args: string[]) => runCliOk(args, { ...process.env, ...env });

  /** A production platform with REALTIME_FUNDING quotes waiting for their funds. */
  async function quotesOn(first: ServerProcess) {
    const created = JSON.parse((await cli(['platforms', 'create', '--name', 'crash', '--json'])).stdout);
    const api = client(first.baseUrl, created.production);
    const payee = await api.post('/platform/external-accounts', {
      currency: 'USD',
      accountInfo: {
        accountType: 'USD_ACCOUNT',
        accountNumber: '000123456000',
        routingNumber: '021000021',
        beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Pat Payee' },
      },
    });
    assert.equal(payee.status, 201, JSON.stringify(payee.body));
    await cli(['accounts', 'activate', payee.body.id]);
    const quotes: { id: string; transactionId: string; reference: string }[] = [];
    for (let i = 0; i < QUOTES; i++) {
      const quote = await api.post('/quotes', {
        source: { sourceType: 'REALTIME_FUNDING', currency: 'EUR' },
        destination: { destinationType: 'ACCOUNT', accountId: payee.body.id },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 10_000 + i,
      });
      assert.equal(quote.status, 201, JSON.stringify(quote.body));
      const { reference } = quote.body.paymentInstructions[0].accountOrWalletInfo;
      quotes.push({ id: quote.body.id, transactionId: quote.body.transactionId, reference });
    }
    return { created, quotes };
  }

  it('applies the file exactly once after the restart', { timeout: 840_000 }, async () => {
    const first = await spawnServer(env);
    servers.push(first);
    const { created, quotes } = await quotesOn(first);

    // Credits for the quotes among many entries: debits we never sent and credits that match nothing.
    const entry = (i: number): EntrySpec => {
      const quote = quotes[i];
      // Quote i asked for 10 000 + i cents.
      if (quote)
        return {
          key: `Q-${i}`,
          direction: 'CRDT',
          amount: `100.${String(i).padStart(2, '0')}`,
          reference: quote.reference,
        };
      return i % 2 === 0
        ? { key: `D-${i}`, direction: 'DBIT', amount: '1.00', endToEndId: i.toString(16).padStart(32, '0') }
        : { key: `C-${i}`, direction: 'CRDT', amount: '2.00', reference: `NOBODY-${i}` };
    };
    const staged = join(dir, 'big.xml');
    await writeCamt054(staged, { msgId: 'NTF-CRASH', iban: DEBTOR, count: ENTRIES, entry });
    const dropped = join(inbox, 'big.xml');
    renameSync(staged, dropped);

    // The watcher validates the file (xmllint), then applies it in one transaction: killed once it applies.
    await waitFor(async () => validating(dropped), 'the server validates the file', 60_000, 20);
    await waitFor(async () => !validating(dropped), 'the validation ends', 120_000, 20);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    process.kill(first.pid, 'SIGKILL');
    await waitFor(
      async () =>
        !(await fetch(`${first.baseUrl}/healthz`).then(
          () => true,
          () => false,
        )),
      'the server is gone',
    );
    assert.ok(readdirSync(inbox).includes('big.xml'), 'killed while applying: the file is still in the inbox');

    const second = await spawnServer(env);
    servers.push(second);
    await appliedOnce(second, created, quotes);
    const verify = await cli(['ledger', 'verify']);
    assert.match(verify.stdout, /ledger ok/);
  });

  /** The file applied by the restarted server, once, and each of its entries taken once. */
  async function appliedOnce(
    second: ServerProcess,
    created: { production: { tokenId: string; clientSecret: string } },
    quotes: { id: string; transactionId: string }[],
  ) {
    const { openStore } = await import('../../src/store/db.ts');
    const store = openStore({ dataDir: database.env.DATA_DIR ?? '', databaseUrl: database.env.DATABASE_URL });
    try {
      const appliedRows = () =>
        store.db
          .selectFrom('bank_files')
          .selectAll()
          .where('direction', '=', 'IN')
          .where('state', '=', 'APPLIED')
          .execute();
      await waitFor(
        async () => existsSync(join(inbox, 'processed', 'big.xml')),
        'the restarted server applies the file and moves it',
        600_000,
        250,
      ).catch((err: unknown) => {
        throw new Error(`${String(err)}\n${second.output()}`);
      });
      const applied = await appliedRows();
      assert.equal(applied.length, 1, 'applied once');
      assert.equal(applied[0]?.nb_of_txs, BigInt(ENTRIES));
      const fileId = applied[0]?.id ?? '';
      const credits = await store.db.selectFrom('bank_credits').select(['result', 'quote_id']).execute();
      assert.equal(credits.length, ENTRIES / 2 + QUOTES / 2, 'each credit entry recorded once');
      const funded = credits.filter((c) => c.result === 'FUNDED');
      assert.equal(funded.length, QUOTES, 'each quote funded once');
      const events = await store.db
        .selectFrom('rail_events')
        .select((eb) => eb.fn.countAll<bigint>().as('n'))
        .where('bank_file_id', '=', fileId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(events.n), ENTRIES / 2 - QUOTES / 2, 'each debit recorded once');
      const restarted = client(second.baseUrl, created.production);
      for (const quote of quotes) {
        const payment = (await restarted.get(`/transactions/${quote.transactionId}`)).body;
        assert.equal(payment.status, 'PROCESSING', `${quote.id} funded and handed to its rail`);
      }
    } finally {
      await store.close();
    }
  }
});
