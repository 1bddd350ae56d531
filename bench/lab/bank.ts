/**
 * Bank files at scale: BENCH_BANK_PAYMENTS production EUR payouts (100,000 by default) routed to an iso20022
 * connector, exported into pain.001 files by the real export (services.bank.export), then a camt.054 of as many
 * booked debits, written by the fake bank's own writer from those files, ingested by the real ingest
 * (services.bank.ingest). Prints, per engine, each one's time against baselines measured in the same run on
 * the same bytes, and the peak RSS of the process each ran in (this one: the services run in the bench's
 * process, as `payouts bank export` and `payouts bank ingest` run them in theirs).
 *
 *   npm run bench:lab:bank                                  # 100,000 payments, SQLite (+ PostgreSQL)
 *   BENCH_BANK_PAYMENTS=500 npm run bench:lab:bank          # a quick run (the smoke test's)
 *
 * The payouts are made in-process, without HTTP: the first BENCH_BANK_REAL (1,000 by default) through the
 * services one by one (transferOut, then the worker's rail step that puts each in the connector's batch), the
 * rest as copies of the rows the first one wrote (bench/lib/seed.ts, with fresh ids and EndToEndIds). Making
 * 100,000 through the API would take most of an hour on a small machine and measure nothing this bench is
 * about; the export and the ingest measured are the real ones, over every payment.
 * BENCH_BANK_DESTINATIONS (default 1,000) is how many external accounts the payouts go to, in turn.
 */
import { spawn } from 'node:child_process';
import { createReadStream, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { Scope } from '../../src/context.ts';
import { verifyLedger } from '../../src/ledger/verify.ts';
import { loadScope } from '../../src/platforms.ts';
import { readCamt054 } from '../../src/rails/iso20022/camt054.ts';
import { SCHEMA_FILES } from '../../src/rails/iso20022/xsd.ts';
import type { ExportedFile } from '../../src/services/bank/index.ts';
import type { Services } from '../../src/services/index.ts';
import { createPlatform } from '../../src/services/platforms.ts';
import { Camt054Writer } from '../../src/testing/fake-bank/answers.ts';
import { readPain001 } from '../../src/testing/fake-bank/pain001-reader.ts';
import { publishReady } from '../../src/testing/fake-bank/xml-file.ts';
import { bankConnectorsFile, germanIban } from '../../test/bank/fixtures.ts';
import { schemaDirForTests } from '../../test/helpers/iso20022.ts';
import { capturePhases } from '../lib/lifecycle-rows.ts';
import { ratio, x } from '../lib/load.ts';
import { seedLifecycles } from '../lib/seed.ts';
import { engineLabels, freshEngine, machine, open, serverUrl, type Engine } from '../lib/setup.ts';

const PAYMENTS = Number(process.env.BENCH_BANK_PAYMENTS ?? 100_000);
const DESTINATIONS = Math.min(PAYMENTS, Number(process.env.BENCH_BANK_DESTINATIONS ?? 1000));
/** Payouts made one by one through the services; the rest are copies of the rows of the first. */
const REAL = Math.max(1, Math.min(PAYMENTS, Number(process.env.BENCH_BANK_REAL ?? 1000)));
/** Payouts made between two passes of the worker (each pass puts them in the connector's batch). */
const CREATE_BATCH = 500;
/** The xmllint and copy baselines are cheap and run this many times; their median is the figure. */
const BASELINE_RUNS = 3;
const CONNECTOR = 'bank-eu';
const MB = 1024 * 1024;

const fmt = (n: number) => n.toLocaleString('en');
const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/**
 * The peak RSS of this process over `run`: Linux's high-water mark (VmHWM), reset first by writing 5 to
 * /proc/self/clear_refs; where that cannot be done, the most of samples taken every 20 ms.
 */
async function peakRss<T>(
  run: () => Promise<T>,
): Promise<{ result: T; peakMb: number; beforeMb: number; how: string }> {
  const beforeMb = process.memoryUsage().rss / MB;
  let reset = false;
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    reset = true;
  } catch {
    // Not Linux, or not allowed: the samples are the figure.
  }
  let sampled = process.memoryUsage().rss;
  const timer = setInterval(() => {
    sampled = Math.max(sampled, process.memoryUsage().rss);
  }, 20);
  try {
    const result = await run();
    sampled = Math.max(sampled, process.memoryUsage().rss);
    const hwm = reset ? /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8')) : null;
    return hwm
      ? { result, peakMb: Number(hwm[1]) / 1024, beforeMb, how: 'VmHWM, reset before' }
      : { result, peakMb: sampled / MB, beforeMb, how: 'sampled every 20 ms' };
  } finally {
    clearInterval(timer);
  }
}

async function timed<T>(run: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await run();
  return { result, ms: performance.now() - started };
}

/** xmllint over the files, one process after another (as the export and the ingest run it): its time. */
async function xmllint(args: string[], files: readonly string[]): Promise<number> {
  const started = performance.now();
  for (const file of files) {
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn('xmllint', [...args, file], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        if (stderr.length < 4096) stderr += chunk.toString();
      });
      child.on('error', reject);
      child.on('close', (c) => (c === 0 ? resolve(c) : reject(new Error(`xmllint ${file}: ${c}\n${stderr}`))));
    });
    void code;
  }
  return performance.now() - started;
}

/** The baseline that only writes: the files' bytes streamed into new files, each fsynced. */
async function copyBytes(files: readonly string[], into: string): Promise<number> {
  mkdirSync(into, { recursive: true });
  const started = performance.now();
  for (const [i, file] of files.entries()) {
    const out = await openFile(join(into, `copy-${i}.xml`), 'w');
    try {
      for await (const chunk of createReadStream(file, { highWaterMark: 256 * 1024 })) await out.write(chunk as Buffer);
      await out.sync();
    } finally {
      await out.close();
    }
  }
  const ms = performance.now() - started;
  rmSync(into, { recursive: true, force: true });
  return ms;
}

async function medianOf(run: () => Promise<number>): Promise<number> {
  const runs: number[] = [];
  for (let i = 0; i < BASELINE_RUNS; i++) runs.push(await run());
  return median(runs);
}

interface Debtor {
  scope: Scope;
  customerId: string;
  eur: string;
  destinations: string[];
}

/** A production customer whose EUR account a pull funded (settled by an operator: a bank connector cannot pull). */
async function makeDebtor(services: Services, total: number): Promise<Debtor> {
  const platform = await createPlatform(services.ctx, 'bank-bench');
  const scope = await loadScope(services.ctx, platform.platformId, 'production');
  const customer = await services.customers.create(scope, { customerType: 'INDIVIDUAL', platformCustomerId: 'bank' });
  const eur = (
    await services.internalAccounts.listCustomerAccounts(
      scope,
      { customerId: customer.id, currency: 'EUR' },
      { limit: 1, order: 'asc' },
    )
  ).data[0];
  if (!eur) throw new Error('the production customer has no EUR account');
  // Account numbers ending in 000: the fake bank books each payment at once (the sandbox's suffix rules).
  const external = async (n: number, name: string) => {
    const account = await services.externalAccounts.create(scope, {
      customerId: customer.id,
      currency: 'EUR',
      accountInfo: {
        accountType: 'EUR_ACCOUNT',
        iban: germanIban(n * 1000),
        swiftCode: 'COBADEFFXXX',
        beneficiary: {
          beneficiaryType: 'INDIVIDUAL',
          fullName: name,
          address: { line1: 'Hauptstraße 1', city: 'München', postalCode: '80331', country: 'DE' },
        },
      },
    } as Parameters<Services['externalAccounts']['create']>[1]);
    await services.externalAccounts.activate(account.id);
    return account.id;
  };
  const source = await external(9_999_999, 'Funding Source');
  const pull = await services.transfers.transferIn(scope, {
    source: { accountId: source },
    destination: { accountId: eur.id },
    amount: total,
  });
  await services.worker.drain();
  await services.transactions.resolveManually(pull.id, 'COMPLETE');
  const destinations: string[] = [];
  for (let i = 0; i < DESTINATIONS; i++) destinations.push(await external(i + 1, `Payee Nummer ${i + 1}`));
  return { scope, customerId: customer.id, eur: eur.id, destinations };
}

/** The amount of payout `i`, in cents: 1.00 to 50.99 EUR. */
const amountOf = (i: number) => 100 + (i % 5000);

/** Payout `i` from the debtor's EUR account, through the service (POST /transfer-out's path). */
const payout = (services: Services, d: Debtor, i: number) =>
  services.transfers.transferOut(d.scope, {
    source: { accountId: d.eur },
    destination: { accountId: d.destinations[i % d.destinations.length]! },
    amount: amountOf(i),
    remittanceInformation: `Payout ${i + 1}`,
  });

/**
 * The payouts: the first REAL through the services, each put in the connector's batch by the worker's rail
 * step; the rest copies of the rows the first one wrote (captured, with fresh ids and EndToEndIds, to the
 * destinations in turn). Answers every payout's id.
 */
async function makePayouts(services: Services, d: Debtor): Promise<string[]> {
  const { store } = services.ctx;
  const ids: string[] = [];
  const payer = { customerId: d.customerId, platformCustomerId: 'bank', accountId: d.eur, destination: '' };
  const captured = await capturePhases(store, services, { ...payer, destination: d.destinations[0]! }, async (step) => {
    await step('request', async () => ids.push((await payout(services, d, 0)).id));
    await step('rail step', () => services.worker.drain());
  });
  for (let at = 1; at < REAL; at += CREATE_BATCH) {
    for (let i = at; i < Math.min(REAL, at + CREATE_BATCH); i++) ids.push((await payout(services, d, i)).id);
    await services.worker.drain();
  }
  if (PAYMENTS > REAL) {
    const payers = d.destinations.map((destination) => ({ ...payer, destination }));
    const before = new Set(ids);
    await seedLifecycles(store, captured, payers, PAYMENTS - REAL, 1);
    // The seeder's larger page cache (256 MB) back to SQLite's default, the service's: not the export's memory.
    if (store.engine === 'sqlite') await sql`pragma cache_size = -2000`.execute(store.db);
    const all = await store.db
      .selectFrom('transactions')
      .select('id')
      .where('platform_id', '=', d.scope.platformId)
      .where('environment', '=', 'production')
      .where('type', '=', 'OUTGOING')
      .execute();
    for (const { id } of all) if (!before.has(id)) ids.push(id);
  }
  return ids;
}

async function batching(services: Services): Promise<number> {
  const row = await services.ctx.store.db
    .selectFrom('rail_payments')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('connector', '=', CONNECTOR)
    .where('state', '=', 'BATCHING')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * One camt.054 booking every payment of the files, by the fake bank's own reader of pain.001 and writer of
 * camt.054 (src/testing/fake-bank): one notification per file's batch, one entry per payment.
 */
async function writeNotice(files: readonly string[], inbox: string): Promise<string> {
  const msgId = `NBENCH${Date.now().toString(36).toUpperCase()}`;
  const bookedAt = new Date().toISOString();
  const name = `${msgId}.xml`;
  const camt = await Camt054Writer.start(inbox, name, { msgId, createdAt: bookedAt });
  let n = 0;
  for (const file of files) {
    let msg = '';
    for await (const item of readPain001(file)) {
      if (item.kind === 'GROUP') msg = item.msgId;
      if (item.kind === 'BATCH') await camt.account(item.debtorIban);
      if (item.kind !== 'PAYMENT') continue;
      n += 1;
      await camt.entry({
        direction: 'DBIT',
        amount: item.amount,
        currency: item.currency,
        bookedAt,
        acctSvcrRef: `B${msgId.slice(1, 14)}${String(n).padStart(12, '0')}`,
        code: 'ICDT/ESCT',
        refs: { msgId: msg, pmtInfId: item.pmtInfId, instrId: item.instrId, endToEndId: item.endToEndId },
        party: { role: 'Cdtr', name: item.creditorName, account: item.creditorAccount, isIban: item.creditorIsIban },
      });
    }
  }
  await camt.end();
  await publishReady(inbox);
  return join(inbox, name);
}

async function statusCounts(services: Services, ids: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (let at = 0; at < ids.length; at += 1000) {
    const rows = await services.ctx.store.db
      .selectFrom('transactions')
      .select(['status', (eb) => eb.fn.countAll().as('n')])
      .where('id', 'in', ids.slice(at, at + 1000))
      .groupBy('status')
      .execute();
    for (const r of rows) counts.set(r.status, (counts.get(r.status) ?? 0) + Number(r.n));
  }
  return counts;
}

/** Printed as measured: a long run shows its figures as they come. */
const say = (...lines: string[]) => console.log(lines.join('\n'));
const row = (label: string, figure: string, note = '') => `  ${label.padEnd(58)} ${figure.padStart(10)}${note}`;

/** One engine's run: its services and folders, and the checks that failed so far. */
interface Run {
  services: Services;
  dir: string;
  inbox: string;
  failed: string[];
}

/** The export, its baselines over the files it wrote, its peak RSS; answers the files' paths. */
async function benchExport(r: Run): Promise<string[]> {
  const exported = await peakRss(() => timed(() => r.services.bank.export(CONNECTOR)));
  const files: ExportedFile[] = exported.result.result;
  const exportMs = exported.result.ms;
  const released = files.filter((f) => f.state === 'RELEASED');
  const inFiles = released.reduce((sum, f) => sum + f.nbOfTxs, 0);
  if (released.length !== files.length) r.failed.push(`${files.length - released.length} files refused`);
  if (inFiles !== PAYMENTS) r.failed.push(`${fmt(inFiles)} of ${fmt(PAYMENTS)} payments in released files`);
  const paths = released.map((f) => f.path);
  const bytes = paths.reduce((sum, p) => sum + statSync(p).size, 0);
  const xsd = join(schemaDirForTests(), SCHEMA_FILES['pain.001']);
  const copyMs = await medianOf(() => copyBytes(paths, join(r.dir, 'copies')));
  const lintMs = await medianOf(() => xmllint(['--noout', '--stream', '--schema', xsd], paths));
  say(
    `  export (services.bank.export): ${fmt(files.length)} pain.001 files, ${fmt(inFiles)} payments, ` +
      `${(bytes / MB).toFixed(1)} MB`,
    row('export: written, validated, released', seconds(exportMs)),
    row('baseline: the same bytes copied into new files, fsynced', seconds(copyMs)),
    row('baseline: xmllint --noout --stream --schema over the files', seconds(lintMs)),
    row('RATIO export / copy', x(ratio(exportMs, copyMs))),
    row('RATIO export / xmllint --schema', x(ratio(exportMs, lintMs))),
    row(
      'peak RSS during the export (this process)',
      `${exported.peakMb.toFixed(0)} MB`,
      `  (${exported.how}; ${exported.beforeMb.toFixed(0)} MB before)`,
    ),
  );
  return paths;
}

/** The camt.054 of every payment of `paths`, its ingest, its baselines over the same file, its peak RSS. */
async function benchIngest(r: Run, paths: readonly string[]): Promise<void> {
  const notice = await timed(() => writeNotice(paths, r.inbox));
  const camt = notice.result;
  const xsd = join(schemaDirForTests(), SCHEMA_FILES['camt.054']);
  const parseMs = await medianOf(() => xmllint(['--noout', '--stream'], [camt]));
  const validateMs = await medianOf(() => xmllint(['--noout', '--stream', '--schema', xsd], [camt]));
  // Once: at full size it takes as long as several xmllint runs.
  const read = await timed(async () => {
    let entries = 0;
    for await (const item of readCamt054(camt)) if (item.kind === 'ENTRY') entries += 1;
    return entries;
  });
  if (read.result !== PAYMENTS) r.failed.push(`the reader read ${fmt(read.result)} entries`);
  const ingested = await peakRss(() => timed(() => r.services.bank.ingest([camt], CONNECTOR)));
  const [outcome] = ingested.result.result;
  const ingestMs = ingested.result.ms;
  if (outcome?.outcome !== 'APPLIED') r.failed.push(`the camt.054 was not applied: ${JSON.stringify(outcome)}`);
  else if (outcome.counts.applied !== PAYMENTS)
    r.failed.push(`the camt.054 moved ${fmt(outcome.counts.applied)} of ${fmt(PAYMENTS)} payments`);
  say(
    `  ingest (services.bank.ingest): one camt.054 of ${fmt(PAYMENTS)} booked debits, ` +
      `${(statSync(camt).size / MB).toFixed(1)} MB, written by the fake bank's writer in ${seconds(notice.ms)}`,
    row('ingest: validated, applied in one transaction', seconds(ingestMs)),
    row('baseline: xmllint --noout --stream (parse only)', seconds(parseMs)),
    row('baseline: xmllint --noout --stream --schema', seconds(validateMs)),
    row("baseline: the service's camt.054 reader alone (saxes)", seconds(read.ms)),
    row('RATIO ingest / xmllint --stream', x(ratio(ingestMs, parseMs))),
    row('RATIO ingest / xmllint --stream --schema', x(ratio(ingestMs, validateMs))),
    row('RATIO ingest / the reader alone', x(ratio(ingestMs, read.ms))),
    row(
      'peak RSS during the ingest (this process)',
      `${ingested.peakMb.toFixed(0)} MB`,
      `  (${ingested.how}; ${ingested.beforeMb.toFixed(0)} MB before)`,
    ),
  );
}

async function benchEngine(label: Engine['label']): Promise<boolean> {
  const engine = await freshEngine(label, 'bank');
  const dir = join(engine.env.DATA_DIR ?? '', 'bank');
  const folders = bankConnectorsFile(dir, { schemas: schemaDirForTests() });
  const { services } = await open(engine, { CONNECTORS_FILE: folders.file });
  const r: Run = { services, dir, inbox: folders.inbox, failed: [] };
  say(`\n${label}: ${fmt(PAYMENTS)} production EUR payouts to the iso20022 connector`);
  try {
    const made = await timed(async () => makePayouts(services, await makeDebtor(services, PAYMENTS * 6000)));
    const ids = made.result;
    const waiting = await batching(services);
    say(
      `  made in ${seconds(made.ms)}: ${fmt(REAL)} in-process through the services (transferOut, then the ` +
        `worker's rail step; no HTTP)` +
        (PAYMENTS > REAL ? `, ${fmt(PAYMENTS - REAL)} copies of the first one's rows` : '') +
        `; ${fmt(waiting)} waiting for a file`,
    );
    if (waiting !== PAYMENTS) r.failed.push(`${fmt(waiting)} of ${fmt(PAYMENTS)} payouts waited for a file`);
    await benchIngest(r, await benchExport(r));
    const statuses = await statusCounts(services, ids);
    const completed = statuses.get('COMPLETED') ?? 0;
    if (completed !== PAYMENTS)
      r.failed.push(
        `${fmt(completed)} of ${fmt(PAYMENTS)} COMPLETED (${JSON.stringify(Object.fromEntries(statuses))})`,
      );
    const violations = await verifyLedger(services.ctx.store);
    if (violations.length > 0)
      r.failed.push(`the ledger: ${violations.length} violations, first ${JSON.stringify(violations[0])}`);
    say(
      r.failed.length === 0
        ? `  checks: every file released; ${fmt(completed)} of ${fmt(PAYMENTS)} payments COMPLETED; the ledger verifies`
        : `  CHECKS FAILED: ${r.failed.join('; ')}`,
    );
  } finally {
    await services.ctx.store.close();
    await engine.drop();
  }
  return r.failed.length === 0;
}

console.log(`payouts bank-files bench — ${machine()}`);
let ok = true;
for (const label of engineLabels()) ok = (await benchEngine(label)) && ok;
if (!serverUrl()) console.log('\nPostgreSQL: skipped (set TEST_DATABASE_URL or BENCH_DATABASE_URL)');
if (!ok) process.exitCode = 1;
