// The Sandbox screen's kit over real HTTP, without a browser: a trigger records its event and the screen shows
// it with links to what it created; a reset empties the workspace and keeps its credentials; a snapshot saved
// and restored brings the workspace back; a form without its CSRF token is refused and changes nothing; a
// read-only token sees but cannot act; production sessions see none of it; no one sees another's snapshots.
import assert from 'node:assert/strict';
import { TRIGGER_EVENTS } from '../../src/domain/sandbox-triggers.ts';
import type { Credentials } from '../../src/services/platforms.ts';
import { useServer, type TestPlatform, type TestServer } from '../helpers/harness.ts';
import { before, describe, it } from '../helpers/node-test.ts';
import { dashboardClient, type DashboardClient } from './session-client.ts';

async function signedIn(server: TestServer, creds: Credentials): Promise<DashboardClient> {
  const client = dashboardClient(server.baseUrl);
  await client.signIn(creds);
  return client;
}

/** Triggers `event` from the Triggers tab and answers the page shown after the redirect. */
async function trigger(client: DashboardClient, event: string): Promise<string> {
  await client.get('/dashboard/sandbox/triggers');
  const res = await client.post('/dashboard/sandbox/triggers', { event });
  assert.equal(res.status, 303, res.html.slice(0, 500));
  assert.equal(res.location, '/dashboard/sandbox/triggers', 'back to the Triggers tab');
  return (await client.get('/dashboard/sandbox/triggers')).html;
}

/** The first link of the page to a dashboard page under `prefix`, as the id it names. */
function linked(html: string, prefix: string): string {
  const path = new RegExp(`href="/dashboard/${prefix}/([^"]+)"`).exec(html)?.[1];
  assert.ok(path, `the page links to a ${prefix} page`);
  return decodeURIComponent(path);
}

async function customerCount(p: TestPlatform): Promise<number> {
  const res = await p.api.get('/customers?limit=100');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.length as number;
}

/** A token of `p`'s sandbox with only these permissions, made through the API. */
async function tokenWith(p: TestPlatform, permissions: string[]): Promise<Credentials> {
  const res = await p.api.post('/tokens', { name: permissions.join('-').toLowerCase(), permissions });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { tokenId: res.body.id, clientSecret: res.body.clientSecret };
}

/** The rows of the Request log tab (or the Faults tab's rules, with `kind` "fault"), as their HTML. */
function rows(html: string, kind = 'request'): string[] {
  return [...html.matchAll(new RegExp(`<tr class="${kind}">([\\s\\S]*?)</tr>`, 'g'))].map((m) => m[1] ?? '');
}

/** The id of the rule a flash says was added. */
function addedRule(html: string): string {
  const id = /class="flash ok"[^>]*>Added fault rule (\S+) for/.exec(html)?.[1];
  assert.ok(id, `a flash names the new rule: ${html.slice(0, 300)}`);
  return id;
}

async function ruleCount(p: TestPlatform): Promise<number> {
  const res = await p.api.get('/sandbox/faults');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.length as number;
}

describe('sandbox kit on the dashboard', () => {
  let a: TestPlatform;
  let b: TestPlatform;

  // No background worker: a snapshot never catches a payment mid-step (the trigger runs its own steps).
  const server = useServer({ RUN_WORKERS: 'false' });
  before(async () => {
    a = await server.platform('kit-alpha');
    b = await server.platform('kit-beta');
  });

  it('triggers an event: recorded, and shown with the event and links to what it created', async () => {
    const alpha = await signedIn(server, a.sandbox);
    const tab = await alpha.get('/dashboard/sandbox/triggers');
    assert.equal(tab.status, 200, tab.html.slice(0, 300));
    for (const event of TRIGGER_EVENTS) assert.ok(tab.html.includes(`<option value="${event}"`), `${event} offered`);
    assert.match(tab.html, /aria-current="page">Triggers</, 'the Triggers tab is the current one');

    const html = await trigger(alpha, 'OUTGOING_PAYMENT.COMPLETED');
    assert.match(html, /class="flash ok"[^>]*>OUTGOING_PAYMENT\.COMPLETED recorded as Webhook:/, 'a flash says so');
    const eventId = linked(html, 'webhooks/events');
    const event = await a.api.get(`/webhook-events/${encodeURIComponent(eventId)}`);
    assert.equal(event.status, 200, JSON.stringify(event.body));
    assert.equal(event.body.type, 'OUTGOING_PAYMENT.COMPLETED', 'the event is in the delivery log under its type');
    const txId = linked(html, 'transactions');
    assert.equal(event.body.objectId, txId, 'the event is about the linked transaction');
    assert.equal((await a.api.get(`/transactions/${encodeURIComponent(txId)}`)).body.status, 'COMPLETED');
    const customerId = linked(html, 'customers');
    assert.equal((await a.api.get(`/customers/${encodeURIComponent(customerId)}`)).status, 200, 'customer exists');
    assert.ok(html.includes(`<code>${txId}</code>`) && html.includes('Quote'), 'every created object is named');
    assert.match(html, /The event&#39;s payload|The event's payload/, 'with the event itself');

    assert.equal((await alpha.get(`/dashboard/transactions/${encodeURIComponent(txId)}`)).status, 200, 'link works');
    assert.equal((await alpha.get(`/dashboard/webhooks/events/${encodeURIComponent(eventId)}`)).status, 200);
    const again = await alpha.get('/dashboard/sandbox/triggers');
    assert.ok(!again.html.includes(eventId), 'the result is shown once, like a flash');

    await alpha.get('/dashboard/sandbox/triggers');
    const unknown = await alpha.post('/dashboard/sandbox/triggers', { event: 'OUTGOING_PAYMENT.LOST' });
    assert.equal(unknown.status, 400, 'an unknown event is refused');
    assert.match(unknown.html, /event must be one of/, 'naming the field');
  });

  it('resets the workspace: customers gone, tokens and sessions kept, only after the typed confirmation', async () => {
    const alpha = await signedIn(server, a.sandbox);
    await trigger(alpha, 'INCOMING_PAYMENT.COMPLETED');
    const held = await customerCount(a);
    assert.ok(held > 0, 'the workspace has customers');
    await trigger(await signedIn(server, b.sandbox), 'INCOMING_PAYMENT.COMPLETED');
    const bBefore = await customerCount(b);
    assert.ok(bBefore > 0, 'another workspace has customers too');

    const tab = await alpha.get('/dashboard/sandbox/workspace');
    assert.match(tab.html, /<h3>Deleted<\/h3>[\s\S]*customers[\s\S]*<h3>Kept<\/h3>[\s\S]*API tokens/, 'says what goes');
    const refused = await alpha.post('/dashboard/sandbox/reset', { confirm: 'yes' });
    assert.equal(refused.status, 303, 'a wrong confirmation goes back to the tab');
    assert.match((await alpha.get('/dashboard/sandbox/workspace')).html, /class="flash bad"[^>]*>Nothing was deleted/);
    assert.equal(await customerCount(a), held, 'and deletes nothing');
    assert.equal((await alpha.post('/dashboard/sandbox/reset', {})).status, 303, 'nor does no confirmation');
    assert.equal(await customerCount(a), held, 'still nothing deleted');

    const loggedBefore = (await a.api.get('/sandbox/requests')).body.data as unknown[];
    assert.ok(loggedBefore.length > 0, "the workspace's requests are in its log");
    const rule = await a.api.post('/sandbox/faults', { route: '/webhooks/test', answer: { status: 503 } });
    assert.equal(rule.status, 201, `a fault rule: ${JSON.stringify(rule.body)}`);
    await alpha.get('/dashboard/sandbox/workspace');
    const reset = await alpha.post('/dashboard/sandbox/reset', { confirm: 'reset' });
    assert.equal(reset.status, 303, reset.html.slice(0, 300));
    // As the API's reset does: the log goes, this process's unwritten part too, and the rules, from memory too.
    // (A dashboard page is not an API request, and the diagnostics routes are not logged: the log stays empty.)
    assert.deepEqual((await a.api.get('/sandbox/requests')).body.data, [], 'the request log was emptied');
    assert.deepEqual((await a.api.get('/sandbox/faults')).body.data, [], 'the fault rules are gone');
    assert.notEqual((await a.api.post('/webhooks/test')).status, 503, 'the rule no longer fires');
    const shown = await alpha.get('/dashboard/sandbox/workspace');
    assert.equal(shown.status, 200, 'the session survives its own reset');
    assert.match(shown.html, /class="flash ok"[^>]*>The workspace is empty: \d+ rows deleted/, 'a flash says so');
    assert.equal(await customerCount(a), 0, 'the customers are gone');
    assert.equal((await a.api.get('/transactions')).body.data.length, 0, 'and the transactions');
    assert.equal((await a.api.get('/config')).status, 200, "the workspace's credentials still work");
    assert.equal((await a.api.get('/sandbox/clock')).body.offsetMs, 0, 'the clock is back at real time');
    assert.equal(await customerCount(b), bBefore, "another workspace's customers stay");
  });

  it('saves a snapshot with a name, lists it, and restores it after a confirmation page', async () => {
    const alpha = await signedIn(server, a.sandbox);
    const made = await trigger(alpha, 'OUTGOING_PAYMENT.FAILED');
    const txId = linked(made, 'transactions');
    const customerId = linked(made, 'customers');

    await alpha.get('/dashboard/sandbox/workspace');
    const saved = await alpha.post('/dashboard/sandbox/snapshots', { name: 'one failed payout' });
    assert.equal(saved.status, 303, saved.html.slice(0, 300));
    const tab = await alpha.get('/dashboard/sandbox/workspace');
    assert.match(tab.html, /class="flash ok"[^>]*>Saved snapshot “one failed payout” \(\d+ rows\)/, 'a flash says so');
    const row = /<tr class="snapshot">([\s\S]*?)<\/tr>/.exec(tab.html)?.[1] ?? '';
    assert.match(row, /<td>one failed payout<\/td>/, 'listed with its name');
    assert.match(row, /<td class="num">[1-9]\d*<\/td>/, 'its rows');
    assert.match(row, /<time datetime="[^"]+">/, 'and its time');
    const snapshotId = linked(row, 'sandbox/snapshots');
    const listed = (await a.api.get('/sandbox/snapshots')).body.data;
    assert.deepEqual(
      listed.map((s: { id: string }) => s.id),
      [snapshotId],
      'the API lists the same snapshot',
    );

    await alpha.get('/dashboard/sandbox/workspace');
    assert.equal((await alpha.post('/dashboard/sandbox/reset', { confirm: 'RESET' })).status, 303);
    assert.equal(await customerCount(a), 0, 'emptied after the snapshot');
    assert.equal((await a.api.get(`/transactions/${encodeURIComponent(txId)}`)).status, 404, 'the payout is gone');

    const confirm = await alpha.get(`/dashboard/sandbox/snapshots/${encodeURIComponent(snapshotId)}`);
    assert.equal(confirm.status, 200, confirm.html.slice(0, 300));
    assert.match(confirm.html, /Restore snapshot one failed payout\?/, 'the confirmation page names it');
    assert.equal(await customerCount(a), 0, 'opening the confirmation restores nothing');
    const restored = await alpha.post(`/dashboard/sandbox/snapshots/${encodeURIComponent(snapshotId)}/restore`, {});
    assert.equal(restored.status, 303, restored.html.slice(0, 300));
    assert.match((await alpha.get('/dashboard/sandbox/workspace')).html, /class="flash ok"[^>]*>Restored snapshot/);
    const tx = await a.api.get(`/transactions/${encodeURIComponent(txId)}`);
    assert.equal(tx.body.status, 'FAILED', 'the payout is back as it was');
    assert.equal((await a.api.get(`/customers/${encodeURIComponent(customerId)}`)).status, 200, 'with its customer');
    assert.equal((await alpha.get(`/dashboard/transactions/${encodeURIComponent(txId)}`)).status, 200, 'and page');
  });

  it('refuses every kit form without its CSRF token, and nothing changes', async () => {
    const alpha = await signedIn(server, a.sandbox);
    await trigger(alpha, 'TEST');
    const snapshotId = (await a.api.post('/sandbox/snapshots', { name: 'csrf' })).body.id as string;
    const customers = await customerCount(a);
    const events = (await a.api.get('/webhook-events?limit=100')).body.data.length;
    const snapshots = (await a.api.get('/sandbox/snapshots')).body.data.length;
    const forms: Array<[string, Record<string, string>]> = [
      ['/dashboard/sandbox/triggers', { event: 'OUTGOING_PAYMENT.COMPLETED' }],
      ['/dashboard/sandbox/reset', { confirm: 'reset' }],
      ['/dashboard/sandbox/snapshots', { name: 'forged' }],
      [`/dashboard/sandbox/snapshots/${encodeURIComponent(snapshotId)}/restore`, {}],
    ];
    for (const [path, fields] of forms) {
      await alpha.get('/dashboard/sandbox/workspace');
      const refused = await alpha.post(path, fields, false);
      assert.equal(refused.status, 403, `${path} without a token`);
      assert.match(refused.html, /did not come from this dashboard/, `${path}: the page says why`);
      assert.equal((await alpha.post(path, fields, 'forged')).status, 403, `${path} with a forged token`);
    }
    assert.equal(await customerCount(a), customers, 'no reset, no restore');
    assert.equal((await a.api.get('/webhook-events?limit=100')).body.data.length, events, 'no event triggered');
    assert.equal((await a.api.get('/sandbox/snapshots')).body.data.length, snapshots, 'no snapshot saved');
  });

  it('lets a read-only token see the kit but not act, and a TRANSACT token trigger but not reset', async () => {
    const reader = await signedIn(server, await tokenWith(a, ['VIEW']));
    const triggers = await reader.get('/dashboard/sandbox/triggers');
    assert.equal(triggers.status, 200, 'a VIEW token sees the Triggers tab');
    assert.match(triggers.html, /OUTGOING_PAYMENT\.COMPLETED/, 'and the events');
    assert.doesNotMatch(triggers.html, /Trigger event|action="\/dashboard\/sandbox\/triggers"/, 'but no form');
    const snapshotId = (await a.api.post('/sandbox/snapshots', { name: 'for readers' })).body.id as string;
    const workspace = await reader.get('/dashboard/sandbox/workspace');
    assert.match(workspace.html, /<td>for readers<\/td>/, 'it sees the snapshots');
    for (const form of ['Save snapshot', 'Reset workspace', 'Restore…'])
      assert.ok(!workspace.html.includes(form), `but not ${form}`);
    const confirm = await reader.get(`/dashboard/sandbox/snapshots/${encodeURIComponent(snapshotId)}`);
    assert.doesNotMatch(confirm.html, /Restore this snapshot/, 'nor a restore button');
    const customers = await customerCount(a);
    const posts: Array<[string, Record<string, string>]> = [
      ['/dashboard/sandbox/triggers', { event: 'TEST' }],
      ['/dashboard/sandbox/reset', { confirm: 'reset' }],
      ['/dashboard/sandbox/snapshots', { name: 'reader' }],
      [`/dashboard/sandbox/snapshots/${encodeURIComponent(snapshotId)}/restore`, {}],
    ];
    for (const [path, fields] of posts) {
      await reader.get('/dashboard/sandbox/workspace');
      const res = await reader.post(path, fields);
      assert.equal(res.status, 403, `${path}: a VIEW token is refused`);
      assert.match(res.html, /needs a token with the (TRANSACT|MANAGE) permission/, 'saying which permission');
    }
    assert.equal(await customerCount(a), customers, 'nothing changed');

    const transactor = await signedIn(server, await tokenWith(a, ['VIEW', 'TRANSACT']));
    await trigger(transactor, 'TEST');
    const tab = await transactor.get('/dashboard/sandbox/workspace');
    assert.ok(!tab.html.includes('Reset workspace'), 'a TRANSACT token sees no reset form');
    assert.equal((await transactor.post('/dashboard/sandbox/reset', { confirm: 'reset' })).status, 403, 'like the API');
  });

  it('shows a production session none of the kit, and refuses its forms', async () => {
    const production = await signedIn(server, a.production);
    for (const path of ['/dashboard', '/dashboard/transactions', '/dashboard/webhooks']) {
      const html = (await production.get(path)).html;
      assert.ok(!html.includes('/dashboard/sandbox'), `${path} links to no sandbox page`);
    }
    const snapshotId = (await a.api.post('/sandbox/snapshots', { name: 'sandbox only' })).body.id as string;
    for (const path of [
      '/dashboard/sandbox/triggers',
      '/dashboard/sandbox/workspace',
      `/dashboard/sandbox/snapshots/${encodeURIComponent(snapshotId)}`,
    ]) {
      const page = await production.get(path);
      assert.equal(page.status, 403, `${path} is refused in production`);
      assert.ok(!page.html.includes('Trigger event') && !page.html.includes('sandbox only'), `${path} shows none`);
    }
    const productionCustomers = (await a.prod.get('/customers?limit=100')).body.data.length;
    for (const [path, fields] of [
      ['/dashboard/sandbox/triggers', { event: 'TEST' }],
      ['/dashboard/sandbox/reset', { confirm: 'reset' }],
      ['/dashboard/sandbox/snapshots', { name: 'prod' }],
      [`/dashboard/sandbox/snapshots/${encodeURIComponent(snapshotId)}/restore`, {}],
    ] as const) {
      await production.get('/dashboard');
      assert.equal((await production.post(path, fields)).status, 403, `${path} is refused in production`);
    }
    assert.equal((await a.prod.get('/customers?limit=100')).body.data.length, productionCustomers, 'nothing changed');
  });

  it("never lists, opens or restores another platform's snapshots", async () => {
    await trigger(await signedIn(server, b.sandbox), 'INVITATION.CLAIMED');
    const foreign = await b.api.post('/sandbox/snapshots', { name: 'beta private' });
    assert.equal(foreign.status, 201, JSON.stringify(foreign.body));
    const foreignId = foreign.body.id as string;
    const bCustomers = await customerCount(b);

    const alpha = await signedIn(server, a.sandbox);
    const tab = await alpha.get('/dashboard/sandbox/workspace');
    assert.ok(!tab.html.includes(foreignId) && !tab.html.includes('beta private'), "beta's snapshot is not listed");
    const path = `/dashboard/sandbox/snapshots/${encodeURIComponent(foreignId)}`;
    assert.equal((await alpha.get(path)).status, 404, "alpha cannot open beta's snapshot");
    await alpha.get('/dashboard/sandbox/workspace');
    assert.equal((await alpha.post(`${path}/restore`, {})).status, 404, 'nor restore it');
    assert.equal(await customerCount(b), bCustomers, "beta's workspace is untouched");
    const beta = await signedIn(server, b.sandbox);
    assert.ok((await beta.get('/dashboard/sandbox/workspace')).html.includes('beta private'), 'beta sees its own');
  });
  it("lists the workspace's API requests in the Request log tab, never another's; filters and pages", async () => {
    const c = await server.platform('kit-log');
    const gamma = await signedIn(server, c.sandbox);
    const empty = await gamma.get('/dashboard/sandbox/requests');
    assert.equal(empty.status, 200, empty.html.slice(0, 300));
    assert.match(empty.html, /aria-current="page">Request log</, 'the Request log tab is the current one');
    assert.match(empty.html, /No API requests logged yet\. Call the API/, 'the empty state says how to fill it');

    const listed = await c.api.get('/customers');
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    const missing = await c.api.get('/customers/Customer:missing');
    assert.equal(missing.status, 404, JSON.stringify(missing.body));
    const keyed = await c.api.post('/customers', { customerType: 'NOPE' }, { 'idempotency-key': 'kit-log-key-1' });
    assert.equal(keyed.status, 400, JSON.stringify(keyed.body));
    assert.equal((await b.api.get('/quotes')).status, 200, 'another workspace calls the API too');

    const all = rows((await gamma.get('/dashboard/sandbox/requests')).html);
    assert.equal(all.length, 3, 'the three requests, and no other workspace');
    const [newest, second, oldest] = all as [string, string, string];
    assert.match(
      newest,
      /POST[\s\S]*<code>\/customers<\/code>[\s\S]*kit-log-key-1[\s\S]*INVALID_INPUT/,
      'newest first',
    );
    assert.match(second, />404<[\s\S]*\/customers\/Customer:missing/, 'its status and path');
    assert.ok(second.includes(`<code>${missing.body.code}</code>`), 'and the error code it answered');
    assert.match(oldest, /<time datetime="[^"]+">[\s\S]*>200<[\s\S]*GET[\s\S]*\d+ ms/, 'time, status, latency');
    assert.ok(oldest.includes(listed.headers.get('x-request-id') ?? 'none'), 'with its request id');
    const betaLog = rows((await (await signedIn(server, b.sandbox)).get('/dashboard/sandbox/requests')).html);
    assert.ok(
      betaLog.some((r) => r.includes('<code>/quotes</code>')),
      "beta's request is in beta's log",
    );

    const errors = rows((await gamma.get('/dashboard/sandbox/requests?status=4xx')).html);
    assert.equal(errors.length, 2, 'the 4xx filter keeps the two refused requests');
    const posts = rows((await gamma.get('/dashboard/sandbox/requests?method=POST&path=%2Fcustomers')).html);
    assert.equal(posts.length, 1, 'method and path narrow it to the POST');
    assert.match(posts[0] ?? '', /kit-log-key-1/, 'the POST is the one kept');
    const none = await gamma.get('/dashboard/sandbox/requests?path=%2Fquotes');
    assert.match(none.html, /No requests match these filters/, 'a filter matching nothing says so');
    assert.equal((await gamma.get('/dashboard/sandbox/requests?status=3xx')).status, 400, 'an unknown class is a 400');

    for (let i = 0; i < 50; i++) assert.equal((await c.api.get('/config')).status, 200, 'a request to page through');
    const first = await gamma.get('/dashboard/sandbox/requests?status=2xx');
    assert.equal(rows(first.html).length, 50, 'a page holds 50 requests');
    const older = /href="([^"]+)" rel="next">Older/.exec(first.html)?.[1]?.replaceAll('&amp;', '&') ?? '';
    assert.ok(older.includes('status=2xx&cursor='), 'an Older link keeps the filter');
    const next = await gamma.get(older);
    assert.equal(rows(next.html).length, 1, 'the oldest 2xx request is on the next page');
    assert.match(rows(next.html)[0] ?? '', /<code>\/customers<\/code>/, 'and it is the first GET /customers');
    assert.match(next.html, /« Newest/, 'with a way back to the newest');
    assert.equal((await gamma.get('/dashboard/sandbox/requests?cursor=nonsense')).status, 400, 'a bad cursor is a 400');
  });

  it('adds a fault rule in the Faults tab: it fires, shows in the log, and stops once removed', async () => {
    const c = await server.platform('kit-faults');
    const gamma = await signedIn(server, c.sandbox);
    const tab = await gamma.get('/dashboard/sandbox/faults');
    assert.equal(tab.status, 200, tab.html.slice(0, 300));
    assert.match(tab.html, /No fault rules/, 'none yet');
    const added = await gamma.post('/dashboard/sandbox/faults', { route: '/customers', method: 'GET', answer: '503' });
    assert.equal(added.status, 303, added.html.slice(0, 300));
    const shown = await gamma.get('/dashboard/sandbox/faults');
    const ruleId = addedRule(shown.html);
    assert.match(rows(shown.html, 'fault')[0] ?? '', /\/customers[\s\S]*GET[\s\S]*503/, 'the rule is listed');

    const faulted = await c.api.get('/customers');
    assert.equal(faulted.status, 503, `the rule fires: ${JSON.stringify(faulted.body)}`);
    assert.equal((await c.api.get('/config')).status, 200, 'on its route only');
    const log = rows((await gamma.get('/dashboard/sandbox/requests?status=5xx')).html);
    assert.equal(log.length, 1, 'the faulted request is logged');
    assert.ok(log[0]?.includes(`<code>${ruleId}</code>`), 'with the id of the rule that fired');

    await gamma.get('/dashboard/sandbox/faults');
    const removed = await gamma.post(`/dashboard/sandbox/faults/${encodeURIComponent(ruleId)}/remove`, {});
    assert.equal(removed.status, 303, removed.html.slice(0, 300));
    assert.match((await gamma.get('/dashboard/sandbox/faults')).html, /class="flash ok"[^>]*>Removed fault rule/);
    assert.equal(await ruleCount(c), 0, 'the rule is gone');
    assert.equal((await c.api.get('/customers')).status, 200, 'and no longer fires');

    for (const route of ['/a', '/b']) {
      await gamma.get('/dashboard/sandbox/faults');
      const res = await gamma.post('/dashboard/sandbox/faults', { route, answer: 'drop', times: '2', latencyMs: '5' });
      assert.equal(res.status, 303, res.html.slice(0, 300));
    }
    assert.equal(await ruleCount(c), 2, 'two rules');
    await gamma.get('/dashboard/sandbox/faults');
    assert.equal((await gamma.post('/dashboard/sandbox/faults/clear', {})).status, 303, 'clear all');
    assert.match((await gamma.get('/dashboard/sandbox/faults')).html, /Removed 2 fault rules/, 'a flash says so');
    assert.equal(await ruleCount(c), 0, 'all gone');
  });

  it("refuses bad fault rules naming the field, forms without a CSRF token, and VIEW tokens' changes", async () => {
    const c = await server.platform('kit-fault-input');
    const gamma = await signedIn(server, c.sandbox);
    const bad: Array<[Record<string, string>, RegExp]> = [
      [{ route: 'customers', answer: '503' }, /route must start with \//],
      [{ route: '/sandbox/faults', answer: '503' }, /never faulted/],
      [{ route: '/customers', answer: '' }, /a rule needs an answer/],
      [{ route: '/customers', answer: '503', probability: '2' }, /probability must be a number from 0 to 1/],
      [{ route: '/customers', answer: '503', times: '0' }, /times must be from 1/],
      [{ route: '/customers', answer: '299' }, /answer must be one of/],
      [{ answer: '503' }, /route is required/],
    ];
    for (const [fields, message] of bad) {
      await gamma.get('/dashboard/sandbox/faults');
      const res = await gamma.post('/dashboard/sandbox/faults', fields);
      assert.equal(res.status, 400, `${JSON.stringify(fields)} is refused`);
      assert.match(res.html, message, `${JSON.stringify(fields)}: the page names the field`);
    }
    assert.equal(await ruleCount(c), 0, 'no rule was made');

    const rule = await c.api.post('/sandbox/faults', { route: '/webhooks/test', answer: { status: 503 } });
    assert.equal(rule.status, 201, JSON.stringify(rule.body));
    const forms: Array<[string, Record<string, string>]> = [
      ['/dashboard/sandbox/faults', { route: '/customers', answer: '503' }],
      [`/dashboard/sandbox/faults/${encodeURIComponent(rule.body.id)}/remove`, {}],
      ['/dashboard/sandbox/faults/clear', {}],
    ];
    const reader = await signedIn(server, await tokenWith(c, ['VIEW']));
    const seen = await reader.get('/dashboard/sandbox/faults');
    assert.ok(seen.html.includes(rule.body.id), 'a VIEW token sees the rules');
    assert.ok(!seen.html.includes('Add rule') && !seen.html.includes('Remove'), 'but no forms');
    for (const [path, fields] of forms) {
      await gamma.get('/dashboard/sandbox/faults');
      const refused = await gamma.post(path, fields, false);
      assert.equal(refused.status, 403, `${path} without a token`);
      assert.match(refused.html, /did not come from this dashboard/, `${path}: the page says why`);
      assert.equal((await gamma.post(path, fields, 'forged')).status, 403, `${path} with a forged token`);
      await reader.get('/dashboard/sandbox/requests');
      const res = await reader.post(path, fields);
      assert.equal(res.status, 403, `${path}: a VIEW token is refused`);
      assert.match(res.html, /needs a token with the TRANSACT permission/, 'saying which permission');
    }
    assert.deepEqual(
      (await c.api.get('/sandbox/faults')).body.data.map((r: { id: string }) => r.id),
      [rule.body.id],
      'the one rule is still there, and no other',
    );
  });

  it('refuses the Request log and Faults tabs to a production session', async () => {
    const production = await signedIn(server, a.production);
    for (const path of ['/dashboard/sandbox/requests', '/dashboard/sandbox/faults']) {
      const page = await production.get(path);
      assert.equal(page.status, 403, `${path} is refused in production`);
      assert.ok(!page.html.includes('Add rule') && !page.html.includes('class="request"'), `${path} shows none`);
    }
    await production.get('/dashboard');
    const res = await production.post('/dashboard/sandbox/faults', { route: '/customers', answer: '503' });
    assert.equal(res.status, 403, 'adding a rule is refused in production');
    await production.get('/dashboard');
    assert.equal((await production.post('/dashboard/sandbox/faults/clear', {})).status, 403, 'and clearing');
  });
});
