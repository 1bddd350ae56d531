// Backup and restore of the embedded database, with real processes: a backup taken while the server runs
// and writes, a wiped DATA_DIR, a restore, and the same credentials, balances, document bytes and a ledger
// that verifies. A restore refuses to run under a server, to overwrite a database unasked, and to restore
// a database whose server key it does not have.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API, basicAuth, client, engine, type Client } from '../helpers/harness.ts';
import { after, describe, it } from '../helpers/node-test.ts';
import { runCli, runCliOk, spawnServer } from '../helpers/processes.ts';
import { PDF, individual } from '../identity/fixtures.ts';

function credentialsIn(dataDir: string): { tokenId: string; clientSecret: string } {
  const text = readFileSync(join(dataDir, 'default-platform-credentials.txt'), 'utf8');
  const field = (name: string) => new RegExp(`${name}:\\s+(\\S+)`).exec(text)?.[1] ?? '';
  return { tokenId: field('tokenId'), clientSecret: field('clientSecret') };
}

async function upload(baseUrl: string, auth: string, holder: string): Promise<string> {
  const form = new FormData();
  for (const [name, value] of Object.entries({ documentType: 'PASSPORT', country: 'US', documentHolder: holder }))
    form.append(name, value);
  form.append('file', new Blob([new Uint8Array(PDF)], { type: 'application/pdf' }), 'passport.pdf');
  const res = await fetch(`${baseUrl}${API}/documents`, {
    method: 'POST',
    body: form,
    headers: { authorization: auth },
  });
  const body = (await res.json()) as { id: string };
  assert.equal(res.status, 201, JSON.stringify(body));
  return body.id;
}

/** What the test checks survived: a customer, the balance of its funded USD account, a document's bytes. */
async function snapshot(api: Client, baseUrl: string, auth: string, customerId: string, documentId: string) {
  const accounts = await api.get(
    `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&currency=USD`,
  );
  const file = await fetch(`${baseUrl}${API}/documents/${encodeURIComponent(documentId)}/file`, {
    headers: { authorization: auth },
  });
  return {
    customer: (await api.get(`/customers/${encodeURIComponent(customerId)}`)).body.platformCustomerId,
    balance: accounts.body.data[0].balance.amount,
    document: Buffer.from(await file.arrayBuffer()).equals(PDF),
  };
}

describe('backup and restore (embedded database)', {
  skip: engine !== 'sqlite' && 'the embedded database only',
}, () => {
  const root = mkdtempSync(join(tmpdir(), 'payouts-backup-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const dataDir = join(root, 'data');
  const archive = join(root, 'backup.tar.gz');
  // No SECRET_KEY: the key is DATA_DIR/secret.key, which the backup must carry for the data to be usable.
  const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', SECRET_KEY: '', LOG_LEVEL: 'warn' };

  it('a backup taken while the server runs restores into a wiped DATA_DIR: same data, ledger verifies', async () => {
    const server = await spawnServer({ DATA_DIR: dataDir, DATABASE_URL: '', SECRET_KEY: '' });
    let before: Awaited<ReturnType<typeof snapshot>>;
    let ids: { customerId: string; documentId: string };
    const creds = credentialsIn(dataDir);
    const auth = basicAuth(creds);
    try {
      const api = client(server.baseUrl, creds);
      const customer = await api.post('/customers', individual('backed-up'));
      assert.equal(customer.status, 201, JSON.stringify(customer.body));
      const usd = await api.get(
        `/customers/internal-accounts?customerId=${encodeURIComponent(customer.body.id)}&currency=USD`,
      );
      const funded = await api.post(`/sandbox/internal-accounts/${usd.body.data[0].id}/fund`, { amount: 12_345 });
      assert.equal(funded.status, 200, JSON.stringify(funded.body));
      ids = { customerId: customer.body.id, documentId: await upload(server.baseUrl, auth, customer.body.id) };
      before = await snapshot(api, server.baseUrl, auth, ids.customerId, ids.documentId);
      assert.deepEqual(before, { customer: 'backed-up', balance: 12_345, document: true }, 'the data is there');

      // The server keeps serving (and writing) while the backup runs.
      const writes = Promise.all([1, 2, 3].map((n) => api.post('/customers', individual(`during-${n}`))));
      const made = await runCliOk(['backup', archive], env);
      await writes;
      assert.match(
        made.stdout,
        /backup written to .*backup\.tar\.gz: the database, 1 document file\(s\) and the server key/,
      );
      assert.equal(statSync(archive).mode & 0o777, 0o600, 'the archive holds the key: only this user may read it');

      const underServer = await runCli(['restore', archive, '--force'], env);
      assert.equal(underServer.code, 1, underServer.stderr);
      assert.match(underServer.stderr, /a server \(or another payouts command\) is using .*stop every payouts process/);
    } finally {
      await server.stop();
    }

    rmSync(dataDir, { recursive: true, force: true });
    const restored = await runCliOk(['restore', archive], env);
    assert.match(restored.stdout, /restored .*backup\.tar\.gz .* into /);
    assert.match(restored.stderr, /^payouts: database: SQLite /, 'restore names the database it wrote');
    assert.equal(statSync(join(dataDir, 'secret.key')).mode & 0o777, 0o600, 'the key file is back, private');
    assert.match((await runCliOk(['ledger', 'verify'], env)).stdout, /ledger ok/);

    const again = await spawnServer({ DATA_DIR: dataDir, DATABASE_URL: '', SECRET_KEY: '' });
    try {
      const api = client(again.baseUrl, creds);
      assert.deepEqual(await snapshot(api, again.baseUrl, auth, ids.customerId, ids.documentId), before, 'all back');
      assert.doesNotMatch(again.stdout(), /Created platform/, 'a restored database is not a first start');
    } finally {
      await again.stop();
    }
  });

  it('restore never overwrites a database unasked; --force moves the old one aside', async () => {
    const refused = await runCli(['restore', archive], env);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /a database is already at .*payouts\.sqlite: restore --force moves it/);
    await runCliOk(['restore', archive, '--force'], env);
    const aside = readdirSync(dataDir).filter((name) => name.startsWith('replaced-'));
    assert.equal(aside.length, 1, 'the replaced files are kept');
    assert.ok(existsSync(join(dataDir, aside[0] ?? '', 'payouts.sqlite')), 'the old database is in it');
    assert.match((await runCliOk(['ledger', 'verify'], env)).stdout, /ledger ok/);
  });

  it('refuses a backup whose server key this process does not have, and a file that is not a backup', async () => {
    const elsewhere = join(root, 'other');
    const otherKey = { ...env, DATA_DIR: elsewhere, SECRET_KEY: 'cd'.repeat(32) };
    const wrongKey = await runCli(['restore', archive], otherKey);
    assert.equal(wrongKey.code, 1, wrongKey.stderr);
    assert.match(wrongKey.stderr, /made with another server key: run restore with the SECRET_KEY/);
    assert.equal(existsSync(join(elsewhere, 'payouts.sqlite')), false, 'nothing restored');
    const notBackup = await runCli(['restore', join(dataDir, 'secret.key')], { ...env, DATA_DIR: join(root, 'x') });
    assert.equal(notBackup.code, 1, notBackup.stderr);
    assert.match(notBackup.stderr, /secret\.key is not a payouts backup/);
  });
});

describe('backup on PostgreSQL', { skip: engine !== 'postgres' && 'needs TEST_DATABASE_URL' }, () => {
  it('points at pg_dump instead', async () => {
    const url = process.env.TEST_DATABASE_URL ?? '';
    const result = await runCli(['backup', join(tmpdir(), 'never.tar.gz')], {
      ...process.env,
      DATABASE_URL: url,
      SECRET_KEY: 'ab'.repeat(32),
    });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /pg_dump/);
  });
});
