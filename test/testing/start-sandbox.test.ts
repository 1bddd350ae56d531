// The test API (src/testing/): startSandbox in both modes, on the embedded database (a temporary folder) or,
// with TEST_DATABASE_URL, on a PostgreSQL database of its own through `databaseUrl`. Everything is checked the
// way a test suite would use it: over HTTP, with real payouts, real signatures and real ports.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqlitePath } from '../../src/store/paths.ts';
import {
  connectSandbox,
  startSandbox,
  type Sandbox,
  type SandboxWorkspace,
  type StartSandboxOptions,
} from '../../src/index.ts';
import { client, createTestDatabase, engine, type TestDatabase } from '../helpers/harness.ts';
import { after, before, describe, it } from '../helpers/node-test.ts';
import { freePort } from '../helpers/processes.ts';
import { externalAccount, fundedCustomer } from '../money/fixtures.ts';

/** The workspace as the suite's fixtures take it: a client of the API with its credentials. */
const platformOf = (sandbox: Sandbox, ws: SandboxWorkspace) => ({ api: client(sandbox.serverUrl, ws.credentials) });

/** A funded customer pays $20.00 out to a US account ending in `tail` (the sandbox outcome); the transaction id. */
async function payOut(sandbox: Sandbox, ws: SandboxWorkspace, tail: string): Promise<string> {
  const p = platformOf(sandbox, ws);
  const payer = await fundedCustomer(p, 'USD', 50_000);
  const destination = await externalAccount(p, payer.customerId, 'US_ACCOUNT', tail);
  const sent = await p.api.post('/transfer-out', {
    source: { accountId: payer.accountId },
    destination: { accountId: destination },
    amount: 2_000,
  });
  assert.equal(sent.status, 201, `transfer-out: ${JSON.stringify(sent.body)}`);
  return sent.body.id as string;
}

/** Whether something can listen on `port` of 127.0.0.1 now. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** The options of a sandbox on this run's engine; on PostgreSQL, a database of its own (the caller drops it). */
async function onEngine(
  options: StartSandboxOptions,
): Promise<{ options: StartSandboxOptions; database?: TestDatabase }> {
  if (engine !== 'postgres') return { options };
  const database = await createTestDatabase();
  const { DATABASE_URL: databaseUrl = '', SECRET_KEY: secretKey = '' } = database.env;
  return { options: { ...options, databaseUrl, secretKey }, database };
}

for (const mode of ['in-process', 'child-process'] as const) {
  describe(`startSandbox (${mode}, ${engine})`, () => {
    let database: TestDatabase | undefined;
    let sandbox: Sandbox;

    before(async () => {
      const started = await onEngine({ mode });
      database = started.database;
      sandbox = await startSandbox(started.options);
    });
    after(async () => {
      await sandbox.close();
      await database?.drop();
    });

    it('answers with its credentials, and refuses a wrong secret', async () => {
      assert.match(sandbox.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/2025-10-13$/, 'baseUrl is the API base');
      const listed = await client(sandbox.serverUrl, sandbox.credentials).get('/customers');
      assert.equal(listed.status, 200, `GET /customers: ${JSON.stringify(listed.body)}`);
      const byHeader = await fetch(`${sandbox.baseUrl}/customers`, {
        headers: { authorization: sandbox.credentials.authorization },
      });
      assert.equal(byHeader.status, 200, 'the ready Authorization header works as it is');
      const wrong = { ...sandbox.credentials, clientSecret: 'not-the-secret-0123456789abcdef' };
      assert.equal((await client(sandbox.serverUrl, wrong).get('/customers')).status, 401, 'a wrong secret is refused');
    });

    it('hands out links that name the port it listens on', async () => {
      const api = client(sandbox.serverUrl, sandbox.credentials);
      const inviter = await api.post('/customers', {
        customerType: 'INDIVIDUAL',
        platformCustomerId: 'inviter-1',
        fullName: 'Ada Lovelace',
      });
      assert.equal(inviter.status, 201, `POST /customers: ${JSON.stringify(inviter.body)}`);
      const invitation = await api.post('/invitations', { inviterUma: inviter.body.umaAddress });
      assert.equal(invitation.status, 201, `POST /invitations: ${JSON.stringify(invitation.body)}`);
      assert.equal(
        invitation.body.url,
        `${sandbox.serverUrl}/invitations/${invitation.body.code}`,
        'a link that works',
      );
    });

    it('makes isolated workspaces: each sees only its own customers', async () => {
      const [a, b] = [await sandbox.newWorkspace({ name: 'a' }), await sandbox.newWorkspace({ name: 'b' })];
      assert.notEqual(a.credentials.tokenId, b.credentials.tokenId, 'each workspace has credentials of its own');
      const made = await platformOf(sandbox, a).api.post('/customers', {
        customerType: 'INDIVIDUAL',
        platformCustomerId: 'isolated-1',
        fullName: 'Ada Lovelace',
      });
      assert.equal(made.status, 201, `POST /customers in a: ${JSON.stringify(made.body)}`);
      const ids = async (ws: SandboxWorkspace) =>
        ((await platformOf(sandbox, ws).api.get('/customers')).body.data as Array<{ id: string }>).map((c) => c.id);
      assert.deepEqual(await ids(a), [made.body.id], 'a sees its customer');
      assert.deepEqual(await ids(b), [], 'b sees none of it');
      assert.ok(!(await ids(sandbox)).includes(made.body.id), 'neither does the default workspace');
      const across = await platformOf(sandbox, b).api.get(`/customers/${encodeURIComponent(made.body.id)}`);
      assert.equal(across.status, 404, "b's credentials cannot read a's customer");
    });

    it('advances one workspace clock: a 30-second rail failure happens at once, and its webhook arrives', async () => {
      const ws = await sandbox.newWorkspace({ name: 'clock' });
      const other = await sandbox.newWorkspace({ name: 'still' });
      const transactionId = await payOut(sandbox, ws, '005');
      // The rail's 30 seconds start when the payment is PROCESSING (the worker's first step); not before.
      await ws.webhooks.waitFor('OUTGOING_PAYMENT.PROCESSING', { match: (d) => d.data.id === transactionId });
      const moved = await ws.advanceClock('30s');
      assert.equal(moved.offsetMs, 30_000, 'the clock moved by 30 s');
      const failed = await ws.webhooks.waitFor('OUTGOING_PAYMENT.FAILED', {
        match: (d) => d.data.id === transactionId,
      });
      assert.equal(failed.data.status, 'FAILED', 'the timed-out payment failed');
      const still = await platformOf(sandbox, other).api.get('/sandbox/clock');
      assert.equal(still.body.offsetMs, 0, "another workspace's clock did not move");
      await assert.rejects(ws.advanceClock('soon'), /duration such as 30s/, 'a malformed duration is refused');
    });

    it('connectSandbox reaches it from elsewhere, with webhooks there; close leaves it running', async () => {
      const elsewhere = await connectSandbox(sandbox.baseUrl);
      const ws = await elsewhere.newWorkspace();
      assert.notEqual(new URL(ws.webhooks.url).port, new URL(sandbox.webhooks.url).port, 'a receiver of its own');
      const test = await ws.webhooks.waitFor('TEST');
      assert.equal(test.verified, true, 'the TEST webhook of the new endpoint arrived there, verified');
      await elsewhere.close();
      assert.equal((await fetch(`${sandbox.serverUrl}/healthz`)).status, 200, 'the sandbox still runs');
    });

    for (const envelope of ['LEGACY', 'CURRENT'] as const) {
      it(`waits for a webhook by its fine-grained type, verified (${envelope} envelope)`, async () => {
        const ws = await sandbox.newWorkspace({ webhookEnvelope: envelope });
        const transactionId = await payOut(sandbox, ws, '000');
        const completed = await ws.webhooks.waitFor('OUTGOING_PAYMENT.COMPLETED', {
          match: (d) => d.data.id === transactionId,
        });
        assert.equal(completed.verified, true, 'it verified');
        assert.deepEqual(
          [completed.signatures.grid, completed.signatures.standard],
          [true, true],
          'both signatures hold with the public keys of GET /config',
        );
        assert.equal(completed.data.status, 'COMPLETED', 'the transaction it carries completed');
        const coarse = envelope === 'LEGACY' ? 'OUTGOING_PAYMENT' : 'OUTGOING_PAYMENT.COMPLETED';
        assert.equal(completed.envelopeType, coarse, `the body's own type is ${coarse}`);
        assert.deepEqual(ws.webhooks.rejected, [], 'nothing the service sent was refused');
      });
    }

    it('refuses a delivery whose signature does not verify, or that another workspace signed', async () => {
      const [a, b] = [await sandbox.newWorkspace(), await sandbox.newWorkspace()];
      const sent = await a.webhooks.waitFor('TEST');
      const post = (url: string, body: Buffer, headers: Record<string, string>) =>
        fetch(url, { method: 'POST', body: new Uint8Array(body), headers });
      // What the service sent, resent as it was: its signature headers, not its transport ones.
      const names = ['content-type', 'x-webhook-event-type', 'x-grid-signature', 'webhook-id', 'webhook-timestamp'];
      const headers = Object.fromEntries(
        [...names, 'webhook-signature'].map((name) => [name, String(sent.headers[name])]),
      );
      const changed = Buffer.from(sent.raw.toString('utf8').replace('"TEST"', '"TEST "'));
      assert.equal((await post(a.webhooks.url, changed, headers)).status, 401, 'a changed body is answered 401');
      assert.equal((await post(b.webhooks.url, sent.raw, headers)).status, 401, "b refuses what a's keys signed");
      const relabelled = { ...headers, 'x-webhook-event-type': 'OUTGOING_PAYMENT.COMPLETED' };
      assert.equal((await post(a.webhooks.url, sent.raw, relabelled)).status, 401, 'an unsigned type is checked');
      assert.equal(a.webhooks.rejected.length, 2, 'a keeps both refused deliveries apart');
      assert.deepEqual(
        a.webhooks.rejected.map((d) => [d.signatures.grid, d.signatures.standard]),
        [
          [false, false],
          [true, true],
        ],
        'the changed body fails both signatures; the relabelled one fails on its type header',
      );
      assert.match(a.webhooks.rejected[1]?.problem ?? '', /disagrees/, 'the problem is named');
      assert.equal(b.webhooks.rejected[0]?.signatures.grid, false, "a's signature does not verify with b's key");
      await assert.rejects(
        a.webhooks.waitFor('OUTGOING_PAYMENT.COMPLETED', { timeoutMs: 200 }),
        /refused: .*disagrees/,
        'a refused delivery never satisfies a wait, and the time-out says what was refused',
      );
    });
  });
}

describe(`startSandbox webhook port (${engine})`, () => {
  it('puts the webhook receiver on the port it is given, for startSandbox and connectSandbox alike', async () => {
    const { options, database } = await onEngine({});
    const [port, workerPort] = [await freePort(), await freePort()];
    const sandbox = await startSandbox({ ...options, webhookPort: port });
    try {
      assert.equal(new URL(sandbox.webhooks.url).port, String(port), sandbox.webhooks.url);
      assert.equal((await sandbox.webhooks.waitFor('TEST')).verified, true, 'the TEST webhook arrived on that port');
      const elsewhere = await connectSandbox(sandbox.baseUrl, { webhookPort: workerPort });
      try {
        const ws = await elsewhere.newWorkspace();
        assert.equal(new URL(ws.webhooks.url).port, String(workerPort), ws.webhooks.url);
        assert.equal((await ws.webhooks.waitFor('TEST')).verified, true, "and on the connection's");
      } finally {
        await elsewhere.close();
      }
      await assert.rejects(
        connectSandbox(sandbox.baseUrl, { webhookPort: port }),
        new RegExp(`the webhook receiver cannot listen on 127\\.0\\.0\\.1:${port}: EADDRINUSE`),
        'a port in use is named',
      );
    } finally {
      await sandbox.close();
      await database?.drop();
    }
  });
});

describe(`startSandbox close (${engine})`, () => {
  it('removes its temporary folder, frees both ports, and may be called twice', async () => {
    const { options, database } = await onEngine({});
    try {
      const sandbox = await startSandbox(options);
      const ports = [Number(new URL(sandbox.serverUrl).port), Number(new URL(sandbox.webhooks.url).port)];
      assert.ok(existsSync(sandbox.dataDir), 'the temporary folder exists while it runs');
      await sandbox.close();
      await sandbox.close();
      assert.ok(!existsSync(sandbox.dataDir), 'the temporary folder is gone');
      for (const port of ports) assert.ok(await portIsFree(port), `port ${port} is free again`);
      await assert.rejects(fetch(`${sandbox.serverUrl}/healthz`), 'nothing answers any more');
    } finally {
      await database?.drop();
    }
  });

  it('keeps a given dataDir, and its preset credentials work again after a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'payouts-sandbox-kept-'));
    try {
      const credentials = {
        tokenId: 'Token:00000000-0000-4000-8000-0000000000aa',
        clientSecret: 'kept-sandbox-secret-0123456789',
      };
      for (const mode of ['child-process', 'in-process'] as const) {
        const sandbox = await startSandbox({ mode, dataDir, credentials });
        try {
          const listed = await client(sandbox.serverUrl, credentials).get('/customers');
          assert.equal(listed.status, 200, `the preset credentials work (${mode})`);
        } finally {
          await sandbox.close();
        }
        assert.ok(existsSync(sqlitePath(dataDir)), `the given folder and its database stay (${mode})`);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses preset credentials with databaseUrl, as the server does', async () => {
    const credentials = { tokenId: 'Token:00000000-0000-4000-8000-0000000000ab', clientSecret: 'x'.repeat(24) };
    await assert.rejects(
      startSandbox({ databaseUrl: 'postgres://nobody@127.0.0.1:1/none', credentials }),
      /embedded database/,
      'the two options do not go together',
    );
  });
});
