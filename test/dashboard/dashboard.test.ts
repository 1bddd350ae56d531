// The dashboard over real HTTP, without a browser: tenant isolation, CSRF, the session cookie and its
// expiry, permissions, and a 4xx page (never a 500) for bad input on every form and filter.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, it } from '../helpers/node-test.ts';
import { waitFor } from '../helpers/wait.ts';
import { useServer, type TestPlatform, type TestServer } from '../helpers/harness.ts';
import type { Credentials } from '../../src/services/platforms.ts';
import { dashboardClient, type DashboardClient } from './session-client.ts';
import { individual, PDF, sendForm } from '../identity/fixtures.ts';
import { startReceiver } from '../webhooks/helpers.ts';

const OPERATOR_TOKEN = randomBytes(32).toString('hex');

/** The server's clock runs `skewMs` ahead of real time, so a test can outlive a session in an instant. */
let skewMs = 0;
const clock = { nowMs: () => Date.now() + skewMs };

/** A production customer with a US bank account, still PENDING the operator's review. */
async function pendingBankAccount(p: TestPlatform, platformCustomerId: string, accountNumber: string) {
  const customerId = (await p.prod.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId })).body
    .id as string;
  const created = await p.prod.post('/customers/external-accounts', {
    customerId,
    currency: 'USD',
    accountInfo: {
      accountType: 'USD_ACCOUNT',
      accountNumber,
      routingNumber: '021000021',
      beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Op User' },
    },
  });
  return { customerId, bank: created.body.id as string };
}

async function signedIn(server: TestServer, creds: Credentials): Promise<DashboardClient> {
  const client = dashboardClient(server.baseUrl);
  await client.signIn(creds);
  return client;
}

/** Runs a sandbox scenario through the dashboard and answers the new transaction's id. */
async function scenario(client: DashboardClient, suffix: string): Promise<string> {
  await client.get('/dashboard/sandbox');
  const res = await client.post('/dashboard/sandbox/scenarios', { suffix });
  assert.equal(res.status, 303, res.html.slice(0, 500));
  const id = decodeURIComponent(res.location?.split('/').pop() ?? '');
  assert.match(id, /^Transaction:/, 'the scenario lands on its transaction');
  return id;
}

describe('dashboard over HTTP', () => {
  let a: TestPlatform;
  let b: TestPlatform;
  let aTx: string;
  let bTx: string;

  const server = useServer({ OPERATOR_TOKEN }, { clock });
  before(async () => {
    a = await server.platform('alpha');
    b = await server.platform('beta');
    aTx = await scenario(await signedIn(server, a.sandbox), '000');
    bTx = await scenario(await signedIn(server, b.sandbox), '004');
    // The background worker may be finishing a step the scenario's drain found claimed.
    const statusOf = async (p: TestPlatform, id: string) => (await p.api.get(`/transactions/${id}`)).body.status;
    await waitFor(async () => (await statusOf(a, aTx)) === 'COMPLETED', "alpha's payment to complete");
    await waitFor(async () => (await statusOf(b, bTx)) === 'FAILED', "beta's payment to fail");
  });

  it("never shows another platform's or environment's objects", async () => {
    const bEvents = (await b.api.get(`/webhook-events?objectId=${encodeURIComponent(bTx)}`)).body.data;
    assert.ok(bEvents.length > 0, "platform beta's payment recorded events");
    const bEvent = bEvents[0].id as string;
    const alpha = await signedIn(server, a.sandbox);
    for (const path of ['/dashboard', '/dashboard/transactions', '/dashboard/webhooks', '/dashboard/tokens']) {
      const page = await alpha.get(path);
      assert.equal(page.status, 200, path);
      for (const foreign of [bTx, bEvent, b.sandbox.tokenId, b.platformId])
        assert.ok(!page.html.includes(foreign), `${path} shows nothing of platform beta (${foreign})`);
    }
    assert.ok((await alpha.get('/dashboard/transactions')).html.includes(aTx), "alpha's own payment is listed");
    const created = ((await a.api.get(`/transactions/${encodeURIComponent(aTx)}`)).body.createdAt as string).slice(
      0,
      10,
    );
    const byDate = await alpha.get(`/dashboard/transactions?from=${created}&to=${created}&type=OUTGOING`);
    assert.ok(byDate.html.includes(aTx), 'a payment is within the dates of its day');
    assert.ok(!(await alpha.get('/dashboard/transactions?to=2000-01-01')).html.includes(aTx), 'and not in 1999');
    assert.equal((await alpha.get(`/dashboard/transactions/${encodeURIComponent(bTx)}`)).status, 404);
    assert.equal((await alpha.get(`/dashboard/webhooks/events/${encodeURIComponent(bEvent)}`)).status, 404);
    await alpha.get('/dashboard/webhooks');
    const redeliver = await alpha.post(`/dashboard/webhook-events/${encodeURIComponent(bEvent)}/redeliver`, {});
    assert.equal(redeliver.status, 404, "alpha cannot redeliver beta's event");
    await alpha.get('/dashboard/tokens');
    const revoke = await alpha.post(`/dashboard/tokens/${encodeURIComponent(b.sandbox.tokenId)}/revoke`, {});
    assert.equal(revoke.status, 404, "alpha cannot revoke beta's token");
    assert.equal((await b.api.get('/transactions')).status, 200, "beta's token still works");

    const production = await signedIn(server, a.production);
    const list = await production.get('/dashboard/transactions');
    assert.ok(!list.html.includes(aTx), "the production session does not list alpha's sandbox payment");
    assert.equal((await production.get(`/dashboard/transactions/${encodeURIComponent(aTx)}`)).status, 404);
    assert.equal((await production.get('/dashboard/sandbox')).status, 403, 'no sandbox screen in production');
    assert.ok(!(await production.get('/dashboard')).html.includes('href="/dashboard/sandbox"'), 'no sandbox link');
  });

  it('refuses every form posted without its CSRF token, or with one from another session', async () => {
    const alpha = await signedIn(server, a.sandbox);
    const other = await signedIn(server, b.sandbox);
    await other.get('/dashboard/tokens');
    const foreignToken = other.csrf();
    const forms: Array<[string, Record<string, string>]> = [
      ['/dashboard/sandbox/scenarios', { suffix: '000' }],
      ['/dashboard/sandbox/payouts', { amount: '1.00', suffix: '000' }],
      ['/dashboard/customers/new', { platformCustomerId: 'csrf-1' }],
      ['/dashboard/customers/Customer:x/external-accounts', { accountNumber: '123456000' }],
      ['/dashboard/sandbox/clock/advance', { seconds: '60' }],
      ['/dashboard/sandbox/triggers', { event: 'TEST' }],
      ['/dashboard/sandbox/reset', { confirm: 'reset' }],
      ['/dashboard/sandbox/snapshots', { name: 'x' }],
      ['/dashboard/tokens', { name: 'x', permissions: 'VIEW' }],
      ['/dashboard/webhooks/config', { webhookEndpoint: '' }],
      [`/dashboard/transactions/${encodeURIComponent(aTx)}/cancel`, {}],
      ['/dashboard/sign-out', {}],
    ];
    for (const [path, fields] of forms) {
      await alpha.get('/dashboard');
      assert.equal((await alpha.post(path, fields, false)).status, 403, `${path} without a token`);
      assert.equal((await alpha.post(path, fields, 'forged')).status, 403, `${path} with a forged token`);
      assert.equal((await alpha.post(path, fields, foreignToken)).status, 403, `${path} with another session's`);
    }
    const fresh = dashboardClient(server.baseUrl);
    await fresh.get('/dashboard/sign-in');
    const creds = { tokenId: a.sandbox.tokenId, clientSecret: a.sandbox.clientSecret };
    assert.equal((await fresh.post('/dashboard/sign-in', creds, false)).status, 403, 'sign-in needs it too');
    assert.equal((await alpha.get('/dashboard')).status, 200, 'the refused sign-out left the session signed in');
  });

  it('keeps the session in an HttpOnly, SameSite=Strict cookie that expires, and ends it on sign-out', async () => {
    const page = await fetch(`${server.baseUrl}/dashboard/sign-in`);
    const cookie = page.headers.getSetCookie().join('\n');
    assert.match(cookie, /HttpOnly/i, 'HttpOnly');
    assert.match(cookie, /SameSite=Strict/i, 'SameSite=Strict');
    assert.match(cookie, /Path=\/dashboard/i, 'only sent to the dashboard');
    assert.ok(!cookie.includes(a.sandbox.clientSecret), 'the cookie is sealed');
    const head = await fetch(`${server.baseUrl}/dashboard/sign-in`, { method: 'HEAD' });
    assert.equal(head.status, 200, 'HEAD changes nothing and needs no CSRF token');

    const alpha = await signedIn(server, a.sandbox);
    assert.equal((await alpha.get('/dashboard')).status, 200);
    skewMs = 9 * 3600_000;
    try {
      const expired = await alpha.get('/dashboard');
      assert.equal(expired.status, 303);
      assert.match(expired.location ?? '', /\/dashboard\/sign-in\?.*reason=expired/, 'an old session signs in again');
    } finally {
      skewMs = 0;
    }
    assert.equal((await alpha.get('/dashboard')).status, 303, 'the expired session is gone');

    const again = await signedIn(server, a.sandbox);
    await again.get('/dashboard');
    const out = await again.post('/dashboard/sign-out', {});
    assert.equal(out.location, '/dashboard/sign-in?reason=signed-out');
    assert.equal((await again.get('/dashboard/transactions')).status, 303, 'signed out');

    const wrong = dashboardClient(server.baseUrl);
    await wrong.get('/dashboard/sign-in');
    const refused = await wrong.post('/dashboard/sign-in', { tokenId: a.sandbox.tokenId, clientSecret: 'nope' });
    assert.equal(refused.status, 401, 'a wrong secret does not sign in');
    assert.match(refused.html, /do not sign in/, 'and says so');
  });

  it('ends the sessions of a revoked token, and shows and allows only what the token may do', async () => {
    const manager = await signedIn(server, a.sandbox);
    await manager.get('/dashboard/tokens');
    const created = await manager.post('/dashboard/tokens', { name: 'reader', permissions: 'VIEW' });
    assert.equal(created.status, 201, created.html.slice(0, 300));
    const tokenId = /id="new-token-id">([^<]+)</.exec(created.html)?.[1] ?? '';
    const clientSecret = /id="new-token-secret"[^>]*>([^<]+)</.exec(created.html)?.[1] ?? '';
    assert.ok(tokenId && clientSecret, 'the new secret is shown once');
    assert.ok(!(await manager.get('/dashboard/tokens')).html.includes(clientSecret), 'and never again');

    const reader = await signedIn(server, { tokenId, clientSecret });
    const sandbox = await reader.get('/dashboard/sandbox');
    assert.equal(sandbox.status, 200);
    assert.ok(!sandbox.html.includes('Run scenario'), 'a VIEW token sees no scenario buttons');
    assert.ok(!(await reader.get('/dashboard/tokens')).html.includes('Create token'), 'nor the create form');
    assert.equal((await reader.post('/dashboard/sandbox/scenarios', { suffix: '000' })).status, 403);
    assert.equal((await reader.post('/dashboard/tokens', { name: 'x', permissions: 'MANAGE' })).status, 403);

    await manager.get('/dashboard/tokens');
    const revoked = await manager.post(`/dashboard/tokens/${encodeURIComponent(tokenId)}/revoke`, {});
    assert.equal(revoked.status, 303);
    const afterRevoke = await reader.get('/dashboard');
    assert.match(afterRevoke.location ?? '', /reason=revoked/, "a revoked token's session ends at once");
  });

  it('runs the quote scenarios of the suffix table as real quotes', async () => {
    const alpha = await signedIn(server, a.sandbox);
    const sandbox = await alpha.get('/dashboard/sandbox');
    assert.match(sandbox.html, /Run quote scenario 004/, 'the quote table is offered');
    await alpha.get('/dashboard/sandbox');
    const res = await alpha.post('/dashboard/sandbox/scenarios', { kind: 'quote', suffix: '004' });
    assert.equal(res.status, 303, res.html.slice(0, 400));
    const id = decodeURIComponent(res.location?.split('/').pop() ?? '');
    // The background worker may be finishing a step the scenario's drain found claimed.
    await waitFor(async () => (await a.api.get(`/transactions/${id}`)).body.status === 'FAILED', 'the quote to fail');
    const detail = await alpha.get(res.location ?? '');
    assert.match(detail.html, /badge bad">FAILED</, 'a quote to a CLABE ending 004 fails');
    assert.match(detail.html, /id="quote"/, 'and the payment shows its quote');
    assert.match(detail.html, /MXN/, 'in pesos');
  });

  it('moves the sandbox clock, funds an account, sends a test webhook, and refuses a cancel too late', async () => {
    const alpha = await signedIn(server, a.sandbox);
    const sandbox = await alpha.get('/dashboard/sandbox');
    const accountId = /<option value="(InternalAccount:[^"]+)">USD/.exec(sandbox.html)?.[1] ?? '';
    assert.ok(accountId, 'the fund form lists the USD account');
    const offset = (await a.api.get('/sandbox/clock')).body.offsetMs as number;
    assert.equal((await alpha.post('/dashboard/sandbox/clock/advance', { seconds: '3600' })).status, 303);
    assert.equal((await a.api.get('/sandbox/clock')).body.offsetMs, offset + 3600_000, 'the clock moved an hour');
    const balance = async () =>
      (await a.api.get('/platform/internal-accounts?currency=USD')).body.data[0].balance.amount as number;
    const held = await balance();
    await alpha.get('/dashboard/sandbox');
    assert.equal((await alpha.post('/dashboard/sandbox/fund', { accountId, amount: '12.34' })).status, 303);
    assert.equal(await balance(), held + 1234, '12.34 USD is 1234 cents');
    await alpha.get('/dashboard/sandbox');
    const tooFine = await alpha.post('/dashboard/sandbox/fund', { accountId, amount: '1.234' });
    assert.equal(tooFine.status, 400, 'more decimals than USD has is refused');
    assert.match(tooFine.html, /amount has more than 2 decimals/);

    await alpha.get('/dashboard/webhooks');
    const test = await alpha.post('/dashboard/webhooks/test', {});
    assert.equal(test.status, 303, 'a test send without an endpoint is reported, not an error page');
    assert.match((await alpha.get('/dashboard/webhooks')).html, /class="flash bad"/, 'as a failure');

    await alpha.get(`/dashboard/transactions/${encodeURIComponent(aTx)}`);
    const cancel = await alpha.post(`/dashboard/transactions/${encodeURIComponent(aTx)}/cancel`, {});
    assert.equal(cancel.status, 409, 'a completed payment cannot be cancelled');
    assert.match(cancel.html, /only funded outgoing payments not yet handed to a rail/);
  });

  it("settles a production connector's held payment with the operator token, and only with it", async () => {
    const { customerId, bank } = await pendingBankAccount(a, 'op-1', '000123456002');
    const usd = (await a.prod.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`)).body
      .data[0].id as string;
    await server.app.services.externalAccounts.activate(bank);
    const pull = (
      await a.prod.post('/transfer-in', { source: { accountId: bank }, destination: { accountId: usd }, amount: 500 })
    ).body.id as string;
    const path = `/dashboard/transactions/${encodeURIComponent(pull)}`;
    await waitFor(async () => (await a.prod.get(`/transactions/${pull}`)).body.status === 'PROCESSING', 'held');
    const production = await signedIn(server, a.production);
    assert.match((await production.get(path)).html, /Apply as operator/, 'the held payment offers the operator form');
    const wrong = await production.post(`${path}/operator`, { operatorToken: 'x'.repeat(64), action: 'settle' });
    assert.equal(wrong.status, 401, 'a wrong operator token is refused');
    await production.get(path);
    const settled = await production.post(`${path}/operator`, { operatorToken: OPERATOR_TOKEN, action: 'settle' });
    assert.equal(settled.status, 303, settled.html.slice(0, 300));
    assert.equal((await a.prod.get(`/transactions/${pull}`)).body.status, 'COMPLETED', 'settled');
    const beta = await signedIn(server, b.production);
    await beta.get('/dashboard');
    const foreign = await beta.post(`${path}/operator`, { operatorToken: OPERATOR_TOKEN, action: 'fail' });
    assert.equal(foreign.status, 404, "another platform's session cannot reach it, operator token or not");
    const sandbox = await signedIn(server, a.sandbox);
    await sandbox.get('/dashboard');
    const inSandbox = await sandbox.post(`/dashboard/transactions/${encodeURIComponent(aTx)}/operator`, {
      operatorToken: OPERATOR_TOKEN,
      action: 'fail',
    });
    assert.equal(inSandbox.status, 403, "the sandbox's rail decides sandbox payments");
  });

  it('activates a production account waiting for review with the operator token, and only with it', async () => {
    const { customerId, bank } = await pendingBankAccount(a, 'op-2', '000123456777');
    const statusOf = async () => (await a.prod.get(`/customers/external-accounts/${bank}`)).body.status as string;
    assert.equal(await statusOf(), 'PENDING', 'production accounts wait for review');
    const page = `/dashboard/customers/${encodeURIComponent(customerId)}`;
    const activate = `${page}/accounts/${encodeURIComponent(bank)}/activate`;
    const production = await signedIn(server, a.production);
    assert.match((await production.get(page)).html, /Activate as operator/, 'the pending account offers the form');
    const wrong = await production.post(activate, { operatorToken: 'x'.repeat(64) });
    assert.equal(wrong.status, 401, 'a wrong operator token is refused');
    assert.equal(await statusOf(), 'PENDING');
    const beta = await signedIn(server, b.production);
    await beta.get('/dashboard');
    const foreign = await beta.post(activate, { operatorToken: OPERATOR_TOKEN });
    assert.equal(foreign.status, 404, "another platform's session cannot reach it, operator token or not");
    await production.get(page);
    const done = await production.post(activate, { operatorToken: OPERATOR_TOKEN });
    assert.equal(done.status, 303, done.html.slice(0, 300));
    assert.equal(await statusOf(), 'ACTIVE', 'activated');
    assert.doesNotMatch((await production.get(page)).html, /Activate as operator/, 'nothing left to review');
  });

  it("shows its own environment's ledger check: balanced, then a posting broken on purpose", async () => {
    const alpha = await signedIn(server, a.sandbox);
    await alpha.get('/dashboard');
    const first = await alpha.post('/dashboard/ledger-check', {});
    assert.equal(first.status, 303, first.html.slice(0, 300));
    assert.match(
      (await alpha.get('/dashboard')).html,
      /Ledger balanced<\/span> — checked <time/,
      'balanced, with its time',
    );

    // One posting of alpha's sandbox payment to an internal account, one unit larger: its entry no longer
    // nets to zero, and that account's stored balance no longer equals its postings.
    const { db } = server.app.store;
    const posting = await db
      .selectFrom('postings')
      .innerJoin('journal_entries', 'journal_entries.id', 'postings.entry_id')
      .select(['postings.entry_id', 'postings.line', 'postings.account_id', 'postings.amount'])
      .where('journal_entries.platform_id', '=', a.platformId)
      .where('journal_entries.environment', '=', 'sandbox')
      .where('postings.account_id', 'like', 'InternalAccount:%')
      .orderBy('journal_entries.created_at')
      .executeTakeFirstOrThrow();
    const setAmount = (amount: bigint) =>
      db
        .updateTable('postings')
        .set({ amount })
        .where('entry_id', '=', posting.entry_id)
        .where('line', '=', posting.line)
        .execute();
    await setAmount(posting.amount + 1n);
    try {
      await alpha.get('/dashboard');
      const checked = await alpha.post('/dashboard/ledger-check', {});
      assert.equal(checked.status, 303);
      const home = await alpha.get('/dashboard');
      assert.match(home.html, /class="flash bad"[^>]*>[^<]*found 2 problems/, 'the check says what it found');
      assert.match(home.html, /2 problems found<\/span> — checked <time/, 'the home page shows the failed check');
      assert.ok(home.html.includes(`journal entry ${posting.entry_id} nets 1 `), 'the unbalanced entry is named');
      assert.ok(home.html.includes(`account ${posting.account_id} stores`), 'and the account whose balance is off');

      for (const [name, creds] of [
        ['beta', b.sandbox],
        ["alpha's production", a.production],
      ] as const) {
        const other = await signedIn(server, creds);
        await other.get('/dashboard');
        await other.post('/dashboard/ledger-check', {});
        const page = (await other.get('/dashboard')).html;
        assert.match(page, /Ledger balanced<\/span>/, `${name} checks only its own entries and accounts`);
        assert.ok(!page.includes(posting.entry_id), `${name} never sees alpha's sandbox entry`);
      }
    } finally {
      await setAmount(posting.amount);
    }
    await alpha.get('/dashboard');
    await alpha.post('/dashboard/ledger-check', {});
    assert.match((await alpha.get('/dashboard')).html, /Ledger balanced<\/span>/, 'balanced again once repaired');
  });

  it('creates customers, their bank accounts and payouts in the sandbox only, never for another platform', async () => {
    const alpha = await signedIn(server, a.sandbox);
    await alpha.get('/dashboard/customers');
    const created = await alpha.post('/dashboard/customers/new', { platformCustomerId: 'form-1', name: 'Form One' });
    assert.equal(created.status, 303, created.html.slice(0, 300));
    const customerId = decodeURIComponent(/\/dashboard\/customers\/([^/?]+)$/.exec(created.location ?? '')?.[1] ?? '');
    const viaApi = await a.api.get(`/customers/${encodeURIComponent(customerId)}`);
    assert.equal(viaApi.body.fullName, 'Form One', 'the customer the API shows');

    const bCustomer = (await b.api.post('/customers', individual('form-2'))).body.id as string;
    await alpha.get('/dashboard/customers');
    const foreign = await alpha.post(`/dashboard/customers/${encodeURIComponent(bCustomer)}/external-accounts`, {
      accountNumber: '123456000',
      routingNumber: '021000021',
      beneficiary: 'Someone',
    });
    assert.equal(foreign.status, 404, "alpha cannot add an account to beta's customer");

    const production = await signedIn(server, a.production);
    await production.get('/dashboard/customers');
    const refused = await production.post('/dashboard/customers/new', { platformCustomerId: 'form-3' });
    assert.equal(refused.status, 403, 'production customers come through the API');
    assert.ok(!(await production.get('/dashboard/customers')).html.includes('Create customer'), 'and no form shows');
    await production.get('/dashboard');
    const payout = await production.post('/dashboard/sandbox/payouts', { amount: '1.00', suffix: '000' });
    assert.equal(payout.status, 403, 'nor a sandbox payout');
  });

  it("lists a customer's documents and verifications, what to do when none, never another's", async () => {
    const customerId = (await a.api.post('/customers', individual('docs-1'))).body.id as string;
    const otherId = (await b.api.post('/customers', individual('docs-2'))).body.id as string;
    const page = `/dashboard/customers/${encodeURIComponent(customerId)}`;
    const alpha = await signedIn(server, a.sandbox);
    const empty = (await alpha.get(page)).html;
    assert.match(
      empty,
      /No documents yet\. Upload one with <code>POST \/documents<\/code>/,
      'the empty state says how',
    );
    assert.match(empty, /Not submitted for verification yet\./, 'and how to verify');

    const upload = (creds: Credentials, holder: string) =>
      sendForm(
        server,
        creds,
        'POST',
        '/documents',
        { documentType: 'PASSPORT', country: 'US', documentHolder: holder },
        {
          bytes: PDF,
          name: 'passport.pdf',
        },
      );
    const doc = await upload(a.sandbox, customerId);
    assert.equal(doc.status, 201, JSON.stringify(doc.body));
    const foreignDoc = await upload(b.sandbox, otherId);
    assert.equal(foreignDoc.status, 201, JSON.stringify(foreignDoc.body));
    const verification = await a.api.post('/verifications', { customerId });
    assert.equal(verification.status, 200, JSON.stringify(verification.body));
    const foreignVerification = await b.api.post('/verifications', { customerId: otherId });

    const html = (await alpha.get(page)).html;
    assert.ok(html.includes(doc.body.id as string), 'the document is listed');
    assert.match(html, /PASSPORT/, 'with its type');
    assert.ok(html.includes('passport.pdf'), 'and its file name');
    assert.ok(html.includes(verification.body.id as string), 'the verification is listed');
    assert.ok(html.includes(`>${verification.body.verificationStatus as string}<`), 'with its status');
    assert.doesNotMatch(html, /No documents yet|Not submitted for verification yet/, 'no empty state any more');
    for (const foreign of [foreignDoc.body.id as string, foreignVerification.body.id as string, otherId])
      assert.ok(!html.includes(foreign), `nothing of beta's customer (${foreign})`);
    assert.equal((await alpha.get(`/dashboard/customers/${encodeURIComponent(otherId)}`)).status, 404);
    const production = await signedIn(server, a.production);
    assert.equal((await production.get(page)).status, 404, 'the production session cannot open a sandbox customer');
  });

  it("shows each delivery attempt's request as sent, the response and the latency", async () => {
    const receiver = await startReceiver((_n, _r, res) => {
      res.writeHead(503).end(`busy ${'x'.repeat(2000)}`);
    });
    try {
      const gamma = await server.platform('gamma');
      assert.equal((await gamma.api.patch('/config', { webhookEndpoint: receiver.url })).status, 200);
      const tx = await scenario(await signedIn(server, gamma.sandbox), '000');
      await waitFor(
        () => receiver.received.some((r) => r.body?.id && r.raw.includes(tx)),
        'a webhook about the payment',
      );
      const sent = receiver.received.find((r) => r.raw.includes(tx))!;
      const eventId = sent.headers['webhook-id'] as string;
      const path = `/dashboard/webhooks/events/${encodeURIComponent(eventId)}`;
      const client = await signedIn(server, gamma.sandbox);
      let html = '';
      await waitFor(async () => {
        html = (await client.get(path)).html;
        return html.includes('class="attempt"');
      }, 'the attempt on the event page');
      const escaped = (text: string) =>
        text
          .replace(/&/g, '&amp;')
          .replace(/</g, '&lt;')
          .replace(/>/g, '&gt;')
          .replace(/"/g, '&quot;')
          .replace(/'/g, '&#39;');
      assert.ok(html.includes(escaped(sent.raw.toString('utf8'))), 'the body exactly as the receiver got it');
      for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'x-grid-signature'])
        assert.ok(
          html.includes(`${name}: ${escaped(String(sent.headers[name]))}`),
          `the ${name} header as the receiver got it`,
        );
      assert.match(html, /badge bad">503</, 'the response status');
      const excerpt = /<pre class="raw wrap response-body">([^<]*)<\/pre>/.exec(html)?.[1] ?? '';
      assert.match(excerpt, /^busy x+$/, 'an excerpt of the response body');
      assert.ok(excerpt.length <= 1024, 'bounded to 1 KB');
      assert.match(html, /<td class="num">\d+ ms<\/td>/, 'the latency');
      const api = (await gamma.api.get(`/webhook-events/${encodeURIComponent(eventId)}`)).body;
      assert.equal(api.attempts[0].requestBody, sent.raw.toString('utf8'), 'the API shows the same body');
    } finally {
      await receiver.close();
    }
  });

  it('answers bad input on every form and filter with a 4xx page, never a 500', async () => {
    const alpha = await signedIn(server, a.sandbox);
    const junk = [
      '',
      ' ',
      'x'.repeat(5000),
      '-1',
      '1e999',
      '0x10',
      '💸',
      '<script>',
      '../../etc',
      '%00',
      '99999999999999999',
    ];
    const posts: Array<[string, string[]]> = [
      ['/dashboard/sandbox/scenarios', ['suffix']],
      ['/dashboard/sandbox/scenarios', ['kind', 'suffix']],
      ['/dashboard/sandbox/clock/advance', ['seconds']],
      ['/dashboard/sandbox/fund', ['accountId', 'amount']],
      ['/dashboard/sandbox/triggers', ['event']],
      ['/dashboard/sandbox/reset', ['confirm']],
      ['/dashboard/sandbox/snapshots', ['name']],
      ['/dashboard/sandbox/snapshots/Snapshot:nope/restore', []],
      ['/dashboard/tokens', ['name', 'permissions']],
      ['/dashboard/webhooks/config', ['webhookEndpoint', 'webhookEnvelope']],
      ['/dashboard/sign-in', ['tokenId', 'clientSecret']],
      [`/dashboard/transactions/${encodeURIComponent(aTx)}/operator`, ['operatorToken', 'action']],
      ['/dashboard/customers/Customer:x/accounts/ExternalAccount:y/activate', ['operatorToken']],
    ];
    const statuses: string[] = [];
    for (const [path, fields] of posts) {
      for (const value of junk) {
        await alpha.get('/dashboard/sandbox');
        const form = Object.fromEntries(fields.map((f) => [f, value]));
        const res = await alpha.post(path, form);
        if (res.status >= 500 || res.status < 300) statuses.push(`${path} ${JSON.stringify(value)} → ${res.status}`);
      }
      await alpha.get('/dashboard/sandbox');
      const repeated = await alpha.post(path, Object.fromEntries(fields.map((f) => [f, ['a', 'b']])));
      if (repeated.status >= 500) statuses.push(`${path} repeated fields → ${repeated.status}`);
    }
    const gets = [
      '/dashboard/transactions?status=NOPE',
      '/dashboard/transactions?cursor=garbage',
      '/dashboard/transactions?type=SIDEWAYS&customerId=x',
      '/dashboard/transactions?status=FAILED&status=PENDING',
      '/dashboard/transactions?from=2026-02-30',
      '/dashboard/transactions?to=yesterday',
      `/dashboard/transactions/${'x'.repeat(400)}`,
      '/dashboard/transactions/%E2%80%8B',
      '/dashboard/webhooks?deliveryState=LOST',
      '/dashboard/webhooks/events/nope',
      '/dashboard/quotes/Quote:nope',
      '/dashboard/customers/Customer:nope',
      '/dashboard/sandbox/snapshots/Snapshot:nope',
      '/dashboard/tokens?cursor=%7B%7D',
      '/dashboard/no-such-page',
    ];
    for (const path of gets) {
      const res = await alpha.get(path);
      if (res.status < 400 || res.status >= 500) statuses.push(`GET ${path} → ${res.status}`);
      else assert.match(res.html, /<!doctype html>/, `${path} answers with a page`);
    }
    assert.deepEqual(statuses, [], statuses.join('\n'));
  });

  it('answers malformed requests (an over-long URL, a forged cookie, a body not a form) without a 500', async () => {
    const statuses: string[] = [];
    const long = await fetch(`${server.baseUrl}/dashboard/transactions?customerId=${'x'.repeat(9000)}`);
    if (long.status !== 414) statuses.push(`an over-long URL → ${long.status}`);
    const forged = await fetch(`${server.baseUrl}/dashboard`, {
      headers: { cookie: 'payouts_dashboard=bm90IGEgc2Vzc2lvbg%3D%3D%3Bbm9uY2U%3D' },
      redirect: 'manual',
    });
    if (forged.status !== 303) statuses.push(`a cookie this server did not seal → ${forged.status}`);
    const json = await fetch(`${server.baseUrl}/dashboard/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'x',
    });
    if (json.status >= 500) statuses.push(`text/plain body → ${json.status}`);
    assert.deepEqual(statuses, [], statuses.join('\n'));
  });
});
