// Contract check mode (SANDBOX_CONTRACT_CHECK=true) catching a mismatch. The served document is the service's
// own, so to see one caught the check is handed a copy of it that asks for more than the service answers
// (a required `nickname` on every customer and every transaction): the answers stay what they were, and each
// difference is in the request log, in the metric and among the check's recent mismatches.
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import type { LoggedRequest } from '../../src/services/sandbox-requests.ts';
import { createTestDatabase, engine, startServer, type TestDatabase, type TestServer } from '../helpers/harness.ts';
import { after, before, describe, it } from '../helpers/node-test.ts';
import { startReceiver, type Receiver } from '../webhooks/helpers.ts';
import { waitFor } from '../helpers/wait.ts';

type Node = Record<string, any>;

/** The served document, with `nickname` required of a Customer and of a Transaction. */
function stricter(document: Node): Node {
  const copy = structuredClone(document);
  for (const name of ['Customer', 'Transaction']) {
    const schema = copy.components.schemas[name];
    const variants: Node[] = schema.oneOf ?? schema.anyOf ?? [schema];
    for (const variant of variants) {
      const target = variant.$ref ? copy.components.schemas[variant.$ref.split('/').pop()] : variant;
      target.required = [...(target.required ?? []), 'nickname'];
    }
  }
  return copy;
}

describe(`contract check mode (${engine})`, () => {
  let database: TestDatabase;
  let server: TestServer;
  let receiver: Receiver;
  before(async () => {
    database = await createTestDatabase();
    receiver = await startReceiver();
    server = await startServer({ SANDBOX_REQUEST_LOG_BODIES: 'true' }, { database });
    await server.app.http.ready();
    const served = server.app.http.swagger() as Node;
    server.app.services.contractCheck.useDocument(() => stricter(served));
  });
  // The mismatches are this file's own doing: the server closes without the harness's check of them.
  after(async () => {
    await server?.app.close();
    await receiver?.close();
    await database?.drop();
  });

  it('is off unless asked for', () => {
    assert.equal(loadConfig({ DATA_DIR: database.env.DATA_DIR }).contractCheck, false);
    assert.equal(loadConfig({ DATA_DIR: database.env.DATA_DIR, SANDBOX_CONTRACT_CHECK: 'true' }).contractCheck, true);
    assert.throws(
      () => loadConfig({ DATA_DIR: database.env.DATA_DIR, SANDBOX_CONTRACT_CHECK: 'yes' }),
      /SANDBOX_CONTRACT_CHECK="yes" is not valid/,
    );
  });

  it('records what differs, where and by which rule, and leaves the answer as it was', async () => {
    const p = await server.platform('checked');
    const created = await p.api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'c-1' });
    assert.equal(created.status, 201);
    assert.equal(created.body.platformCustomerId, 'c-1');
    assert.equal('nickname' in created.body, false, 'the answer is not changed');
    const listed = await p.api.get('/customers');
    assert.equal(listed.status, 200);

    const log = await p.api.get<{ data: LoggedRequest[] }>('/sandbox/requests?contractMismatch=true');
    assert.deepEqual(
      log.body.data.map((e) => `${e.method} ${e.path}`),
      ['GET /customers', 'POST /customers'],
    );
    const [list, post] = log.body.data;
    assert.deepEqual(post?.contractMismatches?.[0], {
      kind: 'response',
      operation: 'POST /customers',
      status: 201,
      path: '',
      rule: 'required',
      schemaPath: post?.contractMismatches?.[0]?.schemaPath,
      message: "the body must have required property 'nickname'",
    });
    assert.match(
      post?.contractMismatches?.[0]?.schemaPath ?? '',
      /^#\/components\/schemas\/Customer[A-Za-z]*\/required$/,
    );
    assert.equal(list?.contractMismatches?.[0]?.path, '/data/0', 'the list item, by its JSON pointer');
    const clean = await p.api.get<{ data: LoggedRequest[] }>('/sandbox/requests?contractMismatch=false');
    assert.ok(
      clean.body.data.every((e) => e.contractMismatches === undefined),
      'the clean entries carry no mismatch',
    );

    const metrics = await fetch(`${server.baseUrl}/metrics`).then((r) => r.text());
    assert.match(metrics, /payouts_contract_mismatches_total\{kind="response",operation="POST \/customers"\} 1/);
    assert.ok(server.app.services.contractCheck.count() >= 2, 'the service counts both mismatches');
  });

  it('checks each webhook as sent, and gives its mismatches an entry of their own', async () => {
    const p = await server.platform('webhooks');
    assert.equal((await p.api.patch('/config', { webhookEndpoint: receiver.url })).status, 200);
    const triggered = await p.api.post('/sandbox/trigger', { event: 'OUTGOING_PAYMENT.COMPLETED' });
    assert.equal(triggered.status, 201);
    let entries: LoggedRequest[] = [];
    await waitFor(async () => {
      entries = (await p.api.get<{ data: LoggedRequest[] }>('/sandbox/requests?contractMismatch=true')).body.data;
      return entries.some((e) => e.method === 'WEBHOOK' && e.path === 'OUTGOING_PAYMENT.COMPLETED');
    }, 'the webhook entry');
    const webhook = entries.find((e) => e.path === 'OUTGOING_PAYMENT.COMPLETED');
    const mismatch = webhook?.contractMismatches?.[0];
    assert.equal(mismatch?.kind, 'webhook');
    assert.equal(mismatch?.rule, 'required');
    assert.match(mismatch?.message ?? '', /nickname/);
    assert.match(mismatch?.eventId ?? '', /^Webhook:/);
    // The receiver got the webhook as it always does.
    assert.ok(
      receiver.received.some((r) => r.headers['webhook-id'] === mismatch?.eventId),
      'the receiver got the webhook',
    );
  });
});
