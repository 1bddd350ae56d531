// What a new user trips over on a first look at the dashboard and the API reference (issue #38), each
// seen in headless Chromium as that person sees it: the label of a signing key, the reference page's
// logo, box, first tag and console, the favicon, a refund's row, buttons that can do nothing, a finished
// quote's countdown, the header, zero balances, account ids, the chart, the ledger check, phone widths,
// the fault table, and the sandbox's create forms. Runs on the engine TEST_DATABASE_URL picks.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { after, before, describe, it } from '../helpers/node-test.ts';
import { API, engine, startServer, type TestPlatform, type TestServer } from '../helpers/harness.ts';
import { waitFor } from '../helpers/wait.ts';
import { startReceiver, type Receiver } from '../webhooks/helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'];
const SKIP = existsSync(CHROMIUM) ? false : `SKIPPED: no browser at ${CHROMIUM}`;
/** A platform name as long as real ones get, so the header has to fit it. */
const PLATFORM_NAME = 'Acme Remittances Europe';

describe(`the dashboard and reference on a first look (${engine})`, { skip: SKIP }, () => {
  let server: TestServer;
  let platform: TestPlatform;
  let receiver: Receiver;
  let browser: Browser;
  let page: Page;

  before(async () => {
    server = await startServer({ JOB_POLL_MS: '50' });
    platform = await server.platform(PLATFORM_NAME);
    receiver = await startReceiver();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.baseUrl}/dashboard/sign-in`);
    await page.getByLabel('Token id').fill(platform.sandbox.tokenId);
    await page.getByLabel('Client secret').fill(platform.sandbox.clientSecret);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Home' }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await receiver?.close();
    await server?.close();
  });

  const go = (path: string) => page.goto(`${server.baseUrl}/dashboard${path}`);
  const flash = () => page.locator('.flash').first().innerText();
  /** Runs a Sandbox scenario and waits on its transaction page until it reaches `status`. */
  async function scenario(name: string, status: string): Promise<string> {
    await go('/sandbox');
    await page.getByRole('button', { name }).click();
    await page.getByRole('heading', { name: /Transaction:/ }).waitFor();
    await waitFor(async () => {
      if ((await page.locator('h1 .badge').innerText()) === status) return true;
      await page.reload();
      return false;
    }, `the payment to become ${status}`);
    return (await page.locator('h1 code').innerText()).trim();
  }
  /** The description of the `term` in the page's facts list. */
  const fact = (term: string) => page.locator('dl.facts dt', { hasText: new RegExp(`^${term}$`) }).locator('+ dd');

  it('names the ECDSA key by the header the service sends', async () => {
    await go('/webhooks');
    const keys = await page.locator('section[aria-labelledby="keys"]').innerText();
    assert.match(keys, /X-Grid-Signature/, 'the header the service signs with');
    assert.doesNotMatch(keys, /X-Webhook-Signature/, 'not a header it never sends');
  });

  it('shows a reference page of its own: no framework logo or box, a useful first tag, a quiet console', async () => {
    const reference = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const complaints: string[] = [];
    reference.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') complaints.push(m.text());
    });
    try {
      await reference.goto(`${server.baseUrl}/docs`);
      await reference.locator('.opblock-tag').first().waitFor();
      assert.equal(await reference.locator('.topbar').count(), 0, "no top bar with the framework's logo");
      const boxes = await reference
        .locator('input')
        .evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
      assert.ok(!boxes.includes('/docs/json'), `no "Explore" box with /docs/json: ${boxes.join(', ')}`);
      const link = reference.locator('.info a', { hasText: `${API}/openapi.json` });
      assert.equal(await link.count(), 1, 'the page names the document the README names');
      const first = (await reference.locator('.opblock-tag').first().innerText()).split('\n')[0]!.trim();
      assert.notEqual(first, 'Tokens', 'the reference does not open on API tokens');
      assert.equal(first, 'Platform configuration', 'it opens where a new platform starts');
      await reference.reload();
      await reference.locator('.opblock-tag').first().waitFor();
      assert.deepEqual(complaints, [], 'the page loads without console errors (no refused inline style)');
    } finally {
      await reference.close();
    }
  });

  it('has a favicon, for the dashboard and for /favicon.ico', async () => {
    const ico = await fetch(`${server.baseUrl}/favicon.ico`);
    assert.equal(ico.status, 200, '/favicon.ico is served');
    assert.match(ico.headers.get('content-type') ?? '', /^image\//, 'as an image');
    await go('');
    const href = await page.locator('link[rel="icon"]').getAttribute('href');
    assert.ok(href, 'the dashboard names its icon');
    const icon = await fetch(new URL(href, page.url()));
    assert.equal(icon.status, 200, 'and serves it');
    assert.match(icon.headers.get('content-type') ?? '', /^image\//);
  });

  it('shows the platform by name, and the header fits on one line at 1280 px', async () => {
    await go('');
    const scope = await page.locator('.top .scope').innerText();
    assert.match(scope, new RegExp(PLATFORM_NAME), 'the platform by its name');
    assert.doesNotMatch(scope, new RegExp(platform.platformId), 'not by its id');
    const top = await page.locator('header.top').boundingBox();
    const brand = await page.locator('header.top .brand').boundingBox();
    assert.ok(top && brand, 'the header is drawn');
    assert.ok(top.height < brand.height * 2 + 24, `one line: the header is ${top.height}px high`);
  });

  it('offers no Redeliver on events that had no endpoint, until there is one', async () => {
    const txId = await scenario('Run scenario 000', 'COMPLETED');
    const events = page.locator('article.event');
    await waitFor(async () => {
      await page.reload();
      return (await events.locator('header .badge', { hasText: 'NO_ENDPOINT' }).count()) > 0;
    }, 'the events marked NO_ENDPOINT');
    assert.equal(await page.getByRole('button', { name: /Redeliver/ }).count(), 0, 'no Redeliver on this page');
    await go('/webhooks');
    assert.equal(await page.getByRole('button', { name: /Redeliver/ }).count(), 0, 'nor in the event list');
    assert.match(
      await page.locator('section[aria-labelledby="events"]').innerText(),
      /Set an endpoint above/,
      'the list says what would deliver them',
    );
    const eventLink = page.locator('section[aria-labelledby="events"] tbody a').first();
    await eventLink.click();
    assert.equal(await page.getByRole('button', { name: /Redeliver|Deliver/ }).count(), 0, 'nor on the event page');

    await go('/webhooks');
    await page.getByLabel('URL (empty turns webhooks off)').fill(receiver.url);
    await page.getByRole('button', { name: 'Save' }).click();
    await go(`/transactions/${encodeURIComponent(txId)}`);
    const deliver = page.getByRole('button', { name: /^Deliver / }).first();
    assert.equal(await deliver.count(), 1, 'with an endpoint, an undelivered event can be delivered now');
    const sent = receiver.received.length;
    await deliver.click();
    assert.match(await flash(), /queued/);
    await waitFor(() => receiver.received.length > sent, 'the event delivered');
  });

  it('reads a refund row with its labels and links the account ids', async () => {
    const txId = await scenario('Run scenario 004', 'FAILED');
    assert.match(await fact('Refund').innerText(), /^COMPLETED/, 'the refund, by its status');
    assert.match(await fact('Refund reason').innerText(), /TRANSACTION_FAILED/, 'and its reason, labelled');
    for (const term of ['From', 'To']) {
      const link = fact(term).getByRole('link');
      assert.equal(await link.count(), 1, `the ${term} account is a link`);
      assert.match((await link.getAttribute('href')) ?? '', /\/dashboard\/transactions\?accountIdentifier=/);
    }
    const posting = page.locator('section[aria-labelledby="postings"] tbody tr').first().getByRole('link');
    assert.ok((await posting.count()) >= 1, "a posting's account is a link");
    const to = (await fact('To').innerText()).trim();
    await fact('To').getByRole('link').click();
    await page.getByRole('heading', { name: 'Transactions' }).waitFor();
    assert.equal(await page.getByLabel('Account').inputValue(), to, 'the list is filtered by that account');
    assert.equal(await page.getByRole('link', { name: txId }).count(), 1, 'and shows the payment');
  });

  it('stops the countdown of a quote that is no longer pending', async () => {
    await scenario('Run quote scenario 000', 'COMPLETED');
    const quote = page.locator('section[aria-labelledby="quote"]');
    assert.equal(await quote.locator('.countdown').count(), 0, 'no countdown on the payment page');
    assert.equal(await quote.locator('.rel').count(), 0, 'and no "in 4 minutes" on its expiry');
    await quote.getByRole('link').first().click();
    await page.getByRole('heading', { name: /Quote:/ }).waitFor();
    assert.equal(await page.locator('.countdown').count(), 0, 'none on the quote page');
    assert.doesNotMatch(await fact('Held until').innerText(), /in \d+ (second|minute)/, 'its expiry is a date');
    await go('/quotes');
    const row = page.locator('tbody tr', { hasText: 'COMPLETED' }).first();
    assert.equal(await row.locator('.countdown, .rel').count(), 0, 'nor in the list');
  });

  it('draws whole-number ticks and date labels that do not overlap', async () => {
    await go('');
    const ticks = await page
      .locator('svg.chart text.axis[text-anchor="end"]')
      .evaluateAll((els) => els.map((e) => e.textContent ?? ''));
    assert.ok(ticks.length >= 2, 'the y axis is labelled');
    for (const t of ticks) assert.match(t, /^\d+$/, `a whole number of payments: ${t}`);
    const boxes = await page
      .locator('svg.chart text.axis[text-anchor="middle"]')
      .evaluateAll((els) => els.map((e) => (e as SVGGraphicsElement).getBoundingClientRect().toJSON() as DOMRect));
    assert.ok(boxes.length >= 2, 'the days are labelled');
    for (let i = 1; i < boxes.length; i++)
      assert.ok(boxes[i]!.left >= boxes[i - 1]!.right + 2, `day label ${i} clears the one before it`);
  });

  it('keeps the ledger check current after payments, without "Check now"', async () => {
    await go('');
    await page.getByRole('button', { name: 'Check now' }).click();
    const entries = async () => Number(/(\d+) journal entr/.exec(await page.locator('.ledger-check').innerText())?.[1]);
    const checked = await entries();
    await scenario('Run scenario 000', 'COMPLETED');
    await go('');
    assert.ok((await entries()) > checked, 'the check shown covers the new payment');
    assert.match(await page.locator('#ledger-status').innerText(), /Ledger balanced/);
  });

  it('collapses zero-balance accounts on a customer page', async () => {
    const customer = await platform.api.post('/customers', {
      customerType: 'INDIVIDUAL',
      platformCustomerId: 'zero-1',
    });
    await go(`/customers/${encodeURIComponent(customer.body.id as string)}`);
    const section = page.locator('section[aria-labelledby="internal"]');
    const visibleRows = await section.locator('tbody tr:visible').count();
    assert.equal(visibleRows, 0, 'no zero-balance row is listed open');
    assert.match(await section.locator('summary').innerText(), /\d+ accounts? at zero/, 'they are folded, counted');
  });

  it('keeps words whole in the fault table', async () => {
    await go('/sandbox/faults');
    await page.getByLabel('Route').fill('/customers/external-accounts/**');
    await page.getByRole('button', { name: 'Add rule' }).click();
    const broken = await page.locator('tr.fault code').evaluateAll((codes) =>
      codes
        .filter((code) => {
          const range = document.createRange();
          range.selectNodeContents(code);
          return range.getClientRects().length > 1;
        })
        .map((code) => code.textContent ?? ''),
    );
    assert.deepEqual(broken, [], 'no code in the fault table is broken across lines');
  });

  it('fits a phone: no page scrolls sideways at 375 px', async () => {
    const phone = await browser.newPage({ viewport: { width: 375, height: 800 } });
    try {
      await phone.context().addCookies(await page.context().cookies());
      for (const path of [
        '',
        '/transactions',
        '/quotes',
        '/customers',
        '/webhooks',
        '/tokens',
        '/sandbox',
        '/sandbox/faults',
      ]) {
        await phone.goto(`${server.baseUrl}/dashboard${path}`);
        const width = await phone.evaluate(() => document.documentElement.scrollWidth);
        const past = await phone.evaluate(() =>
          [...document.querySelectorAll('main *')]
            .filter((e) => e.getBoundingClientRect().right > innerWidth + 1)
            .map((e) => `${e.tagName.toLowerCase()}.${e.className}`)
            .slice(0, 5),
        );
        assert.ok(width <= 375, `/dashboard${path} is ${width}px wide: ${past.join(', ')}`);
      }
    } finally {
      await phone.close();
    }
  });

  it('creates a customer, an external account and a payout of a chosen amount from the dashboard', async () => {
    await go('/customers');
    const create = page.locator('section[aria-labelledby="new-customer"]');
    await create.getByLabel('Your customer id').fill('walk-in-1');
    await create.getByLabel('Full name').fill('Ada Lovelace');
    await create.getByRole('button', { name: 'Create customer' }).click();
    assert.match(await flash(), /Created customer/);
    await page.getByRole('heading', { name: /Ada Lovelace/ }).waitFor();

    const external = page.locator('section[aria-labelledby="external"]');
    await external.getByLabel('Account number').fill('123456000');
    await external.getByLabel('Routing number').fill('021000021');
    await external.getByLabel('Bank name').fill('Sandbox Bank');
    await external.getByRole('button', { name: 'Add external account' }).click();
    assert.match(await flash(), /Added ExternalAccount:/);
    assert.equal(await external.locator('tbody tr').count(), 1, 'the account is listed');

    await go('/sandbox');
    const payout = page.locator('section[aria-labelledby="payout"]');
    await payout.getByLabel('Amount (USD)').fill('12.34');
    await payout.getByLabel('Outcome').selectOption('000');
    await payout.getByRole('button', { name: 'Send payout' }).click();
    await page.getByRole('heading', { name: /Transaction:/ }).waitFor();
    assert.equal(await fact('Sent').innerText(), '12.34 USD', 'the amount chosen');
  });
});
