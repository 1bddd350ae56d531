// The Sandbox screen's kit over real HTTP, without a browser: a trigger records its event and the screen shows
// it with links to what it created; a reset empties the workspace and keeps its credentials; a snapshot saved
// and restored brings the workspace back; a form without its CSRF token is refused and changes nothing; a
// read-only token sees but cannot act; production sessions see none of it; no one sees another's snapshots.
import assert from 'node:assert/strict';
import { TRIGGER_EVENTS } from '../../src/domain/sandbox-triggers.ts';
import type { Credentials } from '../../src/services/platforms.ts';
import { startServer, type TestPlatform, type TestServer } from '../helpers/harness.ts';
import { after, before, describe, it } from '../helpers/node-test.ts';
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

describe('sandbox kit on the dashboard', () => {
  let server: TestServer;
  let a: TestPlatform;
  let b: TestPlatform;

  before(async () => {
    // No background worker: a snapshot never catches a payment mid-step (the trigger runs its own steps).
    server = await startServer({ RUN_WORKERS: 'false' });
    a = await server.platform('kit-alpha');
    b = await server.platform('kit-beta');
  });
  after(() => server.close());

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
});
