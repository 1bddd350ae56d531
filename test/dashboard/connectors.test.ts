// The dashboard's Connectors screen and a payment's rail timeline, over real HTTP: CONNECTORS_FILE routes USD
// to `acme`, an HTTP connector in front of the reference adapter (examples/http-adapter/server.mjs) as a real
// process. A payout through it shows on both pages (route, health, events, counts, the timeline's entries);
// with the adapter stopped the page says it is not reachable, the attention list fills, and the operator
// fails the waiting payment from there. One look in headless Chromium when the browser is there. On the
// engine TEST_DATABASE_URL picks.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { signedHeaders } from '../../src/rails/http/signing.ts';
import { after, before, describe, it } from '../helpers/node-test.ts';
import { engine, useServer, type TestPlatform } from '../helpers/harness.ts';
import { freePort, type Daemon } from '../helpers/processes.ts';
import { spawnReferenceAdapter } from '../helpers/reference-adapter.ts';
import { tempDir } from '../helpers/temp-dirs.ts';
import { waitFor } from '../helpers/wait.ts';
import { dashboardClient, type DashboardClient } from './session-client.ts';

const KEY = randomBytes(32);
const SECRET = `whsec_${KEY.toString('base64')}`;
const OPERATOR = randomBytes(24).toString('hex');
const CHROMIUM = '/usr/bin/chromium';
/** The committed screenshot is refreshed on request (DASHBOARD_SCREENSHOT=1) or when it is missing. */
const DOCS_SHOT = join(import.meta.dirname, '..', '..', 'docs', 'dashboard-connectors.png');

/** The text of one section of a page (by its heading's id), tags stripped and spaces squeezed. */
function section(html: string, id: string): string {
  const start = html.indexOf(`aria-labelledby="${id}"`);
  assert.ok(start >= 0, `the page has a ${id} section`);
  const end = html.indexOf('</section>', start);
  return html
    .slice(start, end)
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

describe(`the dashboard's connectors screen and rail timeline (${engine})`, () => {
  const folder = tempDir('dashboard-connectors');
  const file = join(folder, 'connectors.json');
  let adapterPort = 0;
  let adapter: Daemon | undefined;
  let p: TestPlatform;
  let other: TestPlatform;
  let usd: string;
  let customerId: string;
  let dash: DashboardClient;
  let paid: string;
  // `slow`, for EUR: a port that takes connections and never answers, so its health check would wait a minute.
  const held = new Set<Socket>();
  let silent: Server | undefined;

  before(async () => {
    adapterPort = await freePort();
    silent = createServer((socket) => held.add(socket));
    await new Promise<void>((resolve) => silent?.listen(0, '127.0.0.1', resolve));
    const silentPort = (silent.address() as { port: number }).port;
    const acme = { type: 'http', url: `http://127.0.0.1:${adapterPort}`, secret: { env: 'ACME_SECRET' } };
    const slow = { ...acme, url: `http://127.0.0.1:${silentPort}`, timeoutMs: 60_000 };
    const routes = [
      { currency: 'USD', connector: 'acme' },
      { currency: 'EUR', connector: 'slow' },
    ];
    writeFileSync(file, JSON.stringify({ connectors: { acme: { ...acme, pollIntervalMs: 500 }, slow }, routes }));
  });
  after(() => {
    for (const socket of held) socket.destroy();
    silent?.close();
  });
  const server = useServer({ CONNECTORS_FILE: file, ACME_SECRET: SECRET, OPERATOR_TOKEN: OPERATOR, JOB_POLL_MS: '50' });

  async function startAdapter(): Promise<void> {
    adapter = await spawnReferenceAdapter({
      port: adapterPort,
      secret: SECRET,
      serviceUrl: server.baseUrl,
      stateFile: join(folder, 'adapter-state.json'),
    });
  }
  after(() => adapter?.stop());

  before(async () => {
    await startAdapter();
    p = await server.platform('connected');
    other = await server.platform('elsewhere');
    customerId = (await p.prod.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'c-1' })).body.id;
    usd = (await p.prod.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&currency=USD`))
      .body.data[0].id;
    dash = dashboardClient(server.baseUrl);
    await dash.signIn(p.production);
  });

  const bankAccount = async (tail: string): Promise<string> => {
    const res = await p.prod.post('/customers/external-accounts', {
      customerId,
      currency: 'USD',
      accountInfo: {
        accountType: 'USD_ACCOUNT',
        accountNumber: `0001${String(randomBytes(2).readUInt16BE()).padStart(5, '0')}${tail}`,
        routingNumber: '021000021',
        beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Dash Board' },
      },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    await server.app.services.externalAccounts.activate(res.body.id);
    return res.body.id;
  };
  const status = async (id: string) => (await p.prod.get(`/transactions/${id}`)).body.status as string;
  const callback = (body: unknown) => {
    const raw = JSON.stringify(body);
    return fetch(`${server.baseUrl}/connectors/acme/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signedHeaders(KEY, raw, Date.now()) },
      body: raw,
    });
  };
  const txPage = (id: string) => dash.get(`/dashboard/transactions/${encodeURIComponent(id)}`);
  const connectorsPage = async () => {
    const page = await dash.get('/dashboard/connectors');
    assert.equal(page.status, 200, page.html.slice(0, 500));
    return page.html;
  };

  it('shows the route, a reachable connector, the payout, its events and counts; the timeline tells it', async () => {
    const pull = await p.prod.post('/transfer-in', {
      source: { accountId: await bankAccount('000') },
      destination: { accountId: usd },
      amount: 10_000,
    });
    await waitFor(async () => (await status(pull.body.id)) === 'COMPLETED', 'the pull completed', 15_000, 50);
    const out = await p.prod.post('/transfer-out', {
      source: { accountId: usd },
      destination: { accountId: await bankAccount('000') },
      amount: 2_500,
    });
    assert.equal(out.status, 201, JSON.stringify(out.body));
    paid = out.body.id;
    await waitFor(async () => (await status(paid)) === 'COMPLETED', 'the payout completed', 15_000, 50);
    // A late failure after completion (no change) and an event naming no payment (kept, shown).
    const late = await callback({
      id: paid,
      status: 'FAILED',
      failureReason: 'ACCOUNT_INVALID',
      occurredAt: new Date(),
    });
    assert.equal(late.status, 200, await late.text());
    const ghost = 'Transaction:00000000-0000-7000-8000-00000000dead';
    const unknown = await callback({ id: ghost, status: 'COMPLETED', occurredAt: new Date().toISOString() });
    assert.equal(unknown.status, 202, await unknown.text());

    const started = Date.now();
    const html = await connectorsPage();
    const tookMs = Date.now() - started;
    assert.ok(tookMs < 10_000, `the page does not wait out the silent connector's minute (${tookMs} ms)`);
    assert.match(html, /<a href="\/dashboard\/connectors" aria-current="page">Connectors<\/a>/, 'in the navigation');
    assert.match(section(html, 'routes'), /USD any acme/);
    assert.match(section(html, 'routes'), /any other any manual/);
    const health = section(html, 'health');
    assert.match(health, /acme reachable/);
    assert.ok(health.includes(`http://127.0.0.1:${adapterPort}`), health);
    assert.match(health, /slow NOT reachable .*Error no answer within 2000 ms/, 'the silent one, cut short');
    assert.match(section(html, 'routes'), /EUR any slow/);
    assert.ok(!html.includes(KEY.toString('base64')) && !html.includes(KEY.toString('hex')), 'no secret on the page');
    // Submitted, completed, failed, returned, waiting, needs attention.
    assert.match(section(html, 'counts'), /acme 2 2 0 0 0 0/);
    const events = section(html, 'rail-events');
    assert.ok(html.includes(`href="/dashboard/transactions/${encodeURIComponent(paid)}"`), 'the payout is linked');
    assert.match(events, /COMPLETED applied/);
    assert.match(events, /FAILED ACCOUNT_INVALID no change callback/);
    assert.ok(events.includes(`${ghost} COMPLETED unknown payment callback`), events);
    assert.match(section(html, 'attention'), /Nothing waits for a person/);

    const tx = await txPage(paid);
    assert.equal(tx.status, 200);
    const timeline = section(tx.html, 'timeline');
    assert.match(timeline, /ROUTED .* to acme/);
    assert.match(timeline, /SUBMITTED to acme: taken · rail reference \S+/);
    assert.match(timeline, /RAIL COMPLETED .*acme (called back|answered (the submit|a poll)) · applied/);
    assert.match(timeline, /RAIL FAILED .*acme called back · ACCOUNT_INVALID · no change/);
    assert.ok(timeline.indexOf('ROUTED') < timeline.indexOf('RAIL COMPLETED'), 'in time order');
    assert.ok(
      timeline.indexOf('OUTGOING_PAYMENT.PROCESSING') < timeline.indexOf('ROUTED'),
      'routed as it started processing',
    );
    assert.match(section(tx.html, 'summary'), /Connector acme/);
  });

  it("shows no other platform's payments, and is not a sandbox screen", async () => {
    const elsewhere = dashboardClient(server.baseUrl);
    await elsewhere.signIn(other.production);
    const html = (await elsewhere.get('/dashboard/connectors')).html;
    assert.match(section(html, 'routes'), /USD any acme/, 'the routes reach it too');
    assert.ok(!html.includes(encodeURIComponent(paid)) && !html.includes(paid), "no trace of alpha's payout");
    assert.match(section(html, 'counts'), /No payment of this platform/);
    assert.equal((await elsewhere.get(`/dashboard/transactions/${encodeURIComponent(paid)}`)).status, 404);
    const sandbox = dashboardClient(server.baseUrl);
    await sandbox.signIn(p.sandbox);
    const home = await sandbox.get('/dashboard');
    assert.doesNotMatch(home.html, /href="\/dashboard\/connectors"/, 'no link for a sandbox session');
    assert.equal((await sandbox.get('/dashboard/connectors')).status, 403);
  });

  it('adapter stopped: not reachable, the attention list fills, the operator fails the payment there', async () => {
    await adapter?.stop();
    const out = await p.prod.post('/transfer-out', {
      source: { accountId: usd },
      destination: { accountId: await bankAccount('000') },
      amount: 400,
    });
    const id = out.body.id as string;
    let html = '';
    await waitFor(
      async () => {
        html = await connectorsPage();
        return html.includes(`name="ids" value="${id}"`);
      },
      'the payout on the attention list',
      30_000,
      200,
    );
    const health = section(html, 'health');
    assert.match(health, /acme NOT reachable .*Error \S+/, health);
    const attention = section(html, 'attention');
    assert.ok(attention.includes(id), attention);
    assert.match(attention, /acme \$?4\.00.* submit: .* [3-9] /, 'connector, amount, reason with its error, calls');
    assert.match(section(html, 'counts'), /acme 3 2 0 0 1 1/);
    assert.equal(await status(id), 'PROCESSING', 'not failed by guesswork');

    const timeline = section((await txPage(id)).html, 'timeline');
    assert.match(timeline, /SUBMITTING to acme: no answer yet · \d+ unanswered calls · last error: submit: /);
    assert.match(timeline, /ATTENTION .* waits for an answer or a person: submit: .* attention list/);

    await lookInTheBrowser();

    const wrong = await dash.post('/dashboard/connectors/attention', { ids: id, action: 'fail', operatorToken: 'no' });
    assert.equal(wrong.status, 401, 'a wrong operator token moves nothing');
    assert.equal(await status(id), 'PROCESSING');
    await connectorsPage();
    const noIds = await dash.post('/dashboard/connectors/attention', { action: 'fail', operatorToken: OPERATOR });
    assert.equal(noIds.status, 400);
    assert.match(noIds.html, /Tick at least one payment/);
    await connectorsPage();
    const failed = await dash.post('/dashboard/connectors/attention', {
      ids: id,
      action: 'fail',
      reason: 'COUNTERPARTY_POST_TX_FAILED',
      operatorToken: OPERATOR,
    });
    assert.equal(failed.status, 303, failed.html.slice(0, 500));
    assert.equal(failed.location, '/dashboard/connectors');
    const resolved = await connectorsPage();
    assert.match(resolved, /The operator moved 1 payment: 0 completed, 1 failed, 0 refused\./);
    assert.match(section(resolved, 'attention'), /Nothing waits for a person/);
    const tx = (await p.prod.get(`/transactions/${id}`)).body;
    assert.deepEqual([tx.status, tx.failureReason], ['FAILED', 'COUNTERPARTY_POST_TX_FAILED']);
    assert.match(section((await txPage(id)).html, 'timeline'), /ATTENTION .* waited for an answer or a person/);
  });

  /** The Connectors screen in headless Chromium, as it is now: it fits the window; a docs screenshot. */
  async function lookInTheBrowser(): Promise<void> {
    if (!existsSync(CHROMIUM)) return;
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], headless: true });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${server.baseUrl}/dashboard/sign-in`);
      await page.getByLabel('Token id').fill(p.production.tokenId);
      await page.getByLabel('Client secret').fill(p.production.clientSecret);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Home' }).waitFor();
      await page.getByRole('link', { name: 'Connectors' }).click();
      await page.getByRole('heading', { name: 'Attention list' }).waitFor();
      assert.ok(await page.getByRole('checkbox').first().isVisible(), 'a payment to tick');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the page fits the window (${overflow} px too wide)`);
      const shot = process.env.DASHBOARD_SCREENSHOT === '1' || !existsSync(DOCS_SHOT) ? DOCS_SHOT : undefined;
      if (shot) await page.screenshot({ path: shot, fullPage: true });
      // On a phone the tables scroll inside their cards; the page itself stays as wide as the screen.
      await page.setViewportSize({ width: 390, height: 844 });
      const narrow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(narrow <= 0, `the page fits a phone (${narrow} px too wide)`);
    } finally {
      await browser.close();
    }
  }
});
