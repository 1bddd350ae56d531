// The dashboard driven in headless Chromium (Debian's package through playwright-core; nothing downloads
// a browser): sign in, point webhooks at a receiver, run a sandbox scenario, find the payment, open it,
// see its postings and deliveries, redeliver a webhook, create and revoke a token, sign out. Runs on the
// engine TEST_DATABASE_URL picks, like every test. Skipped, saying so, when /usr/bin/chromium is missing.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { after, before, describe, it } from '../helpers/node-test.ts';
import { client, engine, startServer, type TestPlatform, type TestServer } from '../helpers/harness.ts';
import { waitFor } from '../helpers/wait.ts';
import { startReceiver, type Receiver } from '../webhooks/helpers.ts';
import { tempDir } from '../helpers/temp-dirs.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const SKIP = existsSync(CHROMIUM)
  ? false
  : `SKIPPED: no browser at ${CHROMIUM}; install Debian's chromium (apt-get install -y chromium) to run it`;

/** The committed screenshot is refreshed on request (DASHBOARD_SCREENSHOT=1) or when it is missing. */
const DOCS_SHOT = join(import.meta.dirname, '..', '..', 'docs', 'dashboard-transaction.png');
const SHOT =
  process.env.DASHBOARD_SCREENSHOT === '1' || !existsSync(DOCS_SHOT)
    ? DOCS_SHOT
    : join(tempDir('dashboard-shot'), 'transaction.png');

describe(`dashboard in headless Chromium (${engine})`, { skip: SKIP }, () => {
  let server: TestServer;
  let platform: TestPlatform;
  let receiver: Receiver;
  let browser: Browser;
  let page: Page;

  before(async () => {
    server = await startServer({ JOB_POLL_MS: '50' });
    platform = await server.platform('browser');
    receiver = await startReceiver();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // The revoke button asks first (progressive enhancement); the test says yes.
    page.on('dialog', (dialog) => void dialog.accept());
  });
  after(async () => {
    await browser?.close();
    await receiver?.close();
    await server?.close();
  });

  /** The flash message of the current page. */
  const flash = () => page.locator('.flash').first().innerText();
  /**
   * Reloads until the payment on screen reaches `status`: the scenario drains the due jobs, but the
   * background worker may hold one of them at that moment and finish it a little later.
   */
  const settles = (on: Page, status: string) =>
    waitFor(async () => {
      if ((await on.locator('h1 .badge').innerText()) === status) return true;
      await on.reload();
      return false;
    }, `the payment to become ${status}`);
  /** Goes to a screen through the navigation bar, as a person would. */
  const nav = (name: string) => page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name }).click();

  it('signs in with a token and points webhooks at a receiver', async () => {
    await page.goto(`${server.baseUrl}/dashboard`);
    assert.match(page.url(), /\/dashboard\/sign-in\?next=/, 'the dashboard asks for a sign-in first');
    await page.getByLabel('Token id').fill(platform.sandbox.tokenId);
    await page.getByLabel('Client secret').fill(platform.sandbox.clientSecret);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Home' }).waitFor();
    assert.ok(await page.getByText('Money in flight').isVisible(), 'the home screen shows money in flight');
    await page.getByRole('button', { name: 'Check now' }).click();
    assert.match(await flash(), /Ledger balanced/, 'the ledger check runs on request');
    assert.match(await page.locator('#ledger-status').innerText(), /Ledger balanced — checked .* UTC/, 'with its time');

    // Webhooks go to a local receiver, so the payment's events have deliveries to show.
    await nav('Webhooks');
    await page.getByLabel('URL (empty turns webhooks off)').fill(receiver.url);
    await page.getByRole('button', { name: 'Save' }).click();
    assert.match(await flash(), /Webhooks now go to/, 'the endpoint is saved');
  });

  it('runs a sandbox scenario, finds the payment, shows its postings and deliveries, redelivers', async () => {
    // A payout to an account ending 004 fails on the rail and is refunded.
    await nav('Sandbox');
    await page.getByRole('button', { name: 'Run scenario 004' }).click();
    await page.getByRole('heading', { name: /Transaction:/ }).waitFor();
    const txId = (await page.locator('h1 code').innerText()).trim();
    await settles(page, 'FAILED');

    // Find it in the list through the status filter, and open it.
    await nav('Transactions');
    await page.getByLabel('Status').selectOption('FAILED');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('link', { name: txId }).click();
    await page.getByRole('heading', { name: txId }).waitFor();
    assert.equal(await page.locator('h1 .badge').innerText(), 'FAILED');

    const postings = page.locator('section[aria-labelledby="postings"] tbody tr');
    assert.ok((await postings.count()) >= 4, 'the funding and the refund are on the ledger');
    assert.match(await page.locator('section[aria-labelledby="postings"]').innerText(), /REFUND/);

    // Each event shows its delivery attempts once the worker has sent them.
    const events = page.locator('article.event');
    await waitFor(async () => {
      await page.reload();
      const pending = await events.locator('header .badge.wait').count();
      return pending === 0 && (await events.locator('table.attempts tbody tr').count()) > 0;
    }, 'every event delivered (or not for this envelope)');
    assert.match(await events.first().innerText(), /200/, 'the receiver answered 200');

    const redeliveredType = await events.first().locator('header code').first().innerText();
    const sent = receiver.received.length;
    await events
      .first()
      .getByRole('button', { name: /^Redeliver/ })
      .click();
    assert.match(await flash(), /Redelivery of Webhook:.* queued/, 'the redelivery is queued');
    await waitFor(() => receiver.received.length > sent, 'the redelivered webhook');
    await waitFor(async () => {
      await page.reload();
      return (await events.first().locator('table.attempts tbody tr').count()) >= 2;
    }, 'the second run among the attempts');
    assert.match(await events.first().innerText(), new RegExp(redeliveredType.replace('.', '\\.')));
    await page.screenshot({ path: SHOT, fullPage: true });

    // The event's own page: each attempt's request exactly as the receiver got it, opened as a person would.
    const eventId = (await events.first().locator('header .muted code').innerText()).trim();
    await events.first().locator('header a').click();
    await page.getByRole('heading', { name: redeliveredType }).waitFor();
    const attempt = page.locator('tr.attempt').first();
    assert.equal(await attempt.locator('pre.request-body').isVisible(), false, 'the request starts folded');
    await attempt.locator('td.request summary').click();
    const got = receiver.received.find((r) => r.headers['webhook-id'] === eventId);
    assert.ok(got, 'the receiver got the event');
    assert.equal(await attempt.locator('pre.request-body').innerText(), got.raw.toString('utf8'), 'the body as sent');
    const headers = await attempt.locator('pre.request-headers').innerText();
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'x-grid-signature'])
      assert.ok(
        headers.split('\n').includes(`${name}: ${String(got.headers[name])}`),
        `its ${name} header, one a line`,
      );
    assert.match(await attempt.locator('td.response').innerText(), /200/, 'the response status');
  });

  it('triggers an event from the Sandbox screen and follows the link to the transaction it created', async () => {
    await nav('Sandbox');
    await page.getByRole('navigation', { name: 'Sandbox sections' }).getByRole('link', { name: 'Triggers' }).click();
    await page.getByLabel('Event', { exact: true }).selectOption('OUTGOING_PAYMENT.COMPLETED');
    await page.getByRole('button', { name: 'Trigger event' }).click();
    assert.match(await flash(), /OUTGOING_PAYMENT\.COMPLETED recorded as Webhook:/, 'the flash names the event');
    const result = page.locator('section[aria-labelledby="triggered"]');
    const eventId = (await result.getByRole('link', { name: /^Webhook:/ }).innerText()).trim();
    const link = result.getByRole('link', { name: /^Transaction:/ });
    const txId = (await link.innerText()).trim();
    await link.click();
    await page.getByRole('heading', { name: txId }).waitFor();
    assert.equal(await page.locator('h1 .badge').innerText(), 'COMPLETED', 'the payout the trigger made completed');
    const events = (await page.locator('article.event').allInnerTexts()).join('\n');
    assert.ok(events.includes(eventId), "its event is among the payment's events");
  });

  it('creates a token with its secret shown once, and revokes it', async () => {
    // A token: created with its secret shown once, then revoked; its credentials stop working.
    await nav('API tokens');
    await page.getByLabel('Name').fill('browser-reader');
    await page.getByRole('button', { name: 'Create token' }).click();
    const tokenId = await page.locator('#new-token-id').innerText();
    const clientSecret = await page.locator('#new-token-secret').innerText();
    const reader = client(server.baseUrl, { tokenId, clientSecret });
    assert.equal((await reader.get('/transactions')).status, 200, 'the new token works');
    await page.getByRole('button', { name: 'Revoke browser-reader' }).click();
    assert.match(await flash(), /Revoked/, 'revoked');
    assert.equal(await page.getByRole('cell', { name: 'browser-reader' }).count(), 0, 'gone from the list');
    assert.equal((await reader.get('/transactions')).status, 401, 'the revoked token no longer authenticates');
  });

  it('signs out', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    assert.match(await flash(), /signed out/, 'signed out');
    await page.goto(`${server.baseUrl}/dashboard/transactions`);
    assert.match(page.url(), /\/dashboard\/sign-in/, 'and the screens ask for a sign-in again');
  });

  it('works with JavaScript off and from the keyboard: sign in, run a scenario, open it', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const plain = await context.newPage();
    try {
      await plain.goto(`${server.baseUrl}/dashboard/sign-in`);
      await plain.keyboard.press('Tab');
      const skip = await plain.evaluate(() => document.activeElement?.textContent ?? '');
      assert.equal(skip, 'Skip to content', 'the first Tab reaches the skip link');
      await plain.getByLabel('Token id').fill(platform.sandbox.tokenId);
      await plain.getByLabel('Client secret').fill(platform.sandbox.clientSecret);
      await plain.getByLabel('Client secret').press('Enter');
      await plain.getByRole('heading', { name: 'Home' }).waitFor();
      await plain.goto(`${server.baseUrl}/dashboard/sandbox`);
      await plain.getByRole('button', { name: 'Run scenario 000' }).click();
      await plain.getByRole('heading', { name: /Transaction:/ }).waitFor();
      await settles(plain, 'COMPLETED');
      assert.ok((await plain.locator('svg.chart').count()) === 0, 'no chart on this page');
      // The sandbox kit's forms post without a script too: a snapshot saved from the keyboard.
      await plain.goto(`${server.baseUrl}/dashboard/sandbox/workspace`);
      await plain.getByLabel('Snapshot name').fill('keyboard');
      await plain.getByLabel('Snapshot name').press('Enter');
      assert.match(await plain.locator('.flash').innerText(), /Saved snapshot “keyboard”/, 'saved');
      assert.equal(await plain.getByRole('cell', { name: 'keyboard', exact: true }).count(), 1, 'and listed');
      await plain.goto(`${server.baseUrl}/dashboard`);
      assert.equal(await plain.locator('svg.chart').count(), 1, 'the home chart is drawn by the server');
    } finally {
      await context.close();
    }
  });
});
