import { after, before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { startServer, type TestPlatform, type TestServer } from '../helpers/harness.ts';
import { isInternalAddress, isInternalHost } from '../../src/webhooks/url.ts';
import { createServer } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { Agent } from 'undici';
import { postWebhook, publicOnlyAgent, type Resolve } from '../../src/webhooks/transport.ts';

describe('production webhooks never reach internal addresses', () => {
  let server: TestServer;
  let p: TestPlatform;
  before(async () => {
    server = await startServer({ RUN_WORKERS: 'false' });
    p = await server.platform();
  });
  after(() => server.close());

  it('knows the internal ranges, IPv4 and IPv6', () => {
    for (const ip of [
      '127.0.0.1',
      '10.2.3.4',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fc00::1',
      'fd12::1',
      'fe80::1',
      '::ffff:10.0.0.1',
      // IPv4 carried inside IPv6, in every spelling: mapped (dotted and hex), compatible, translated,
      // NAT64 (well-known and local-use prefixes), 6to4 and Teredo.
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '0:0:0:0:0:ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '::127.0.0.1',
      '::7f00:1',
      '64:ff9b::127.0.0.1',
      '64:ff9b::7f00:1',
      '64:ff9b::a00:1',
      '64:ff9b:1::a00:1',
      '2002:7f00:1::',
      '2002:a9fe:a9fe::1',
      '2001:0:7f00:1::1',
      // Multicast, reserved, documentation, broadcast.
      '224.0.0.1',
      '240.0.0.1',
      '255.255.255.255',
      '192.0.2.1',
      'ff02::1',
      '2001:db8::1',
    ]) {
      assert.equal(isInternalAddress(ip), true, ip);
    }
    for (const ip of [
      '8.8.8.8',
      '172.32.0.1',
      '100.128.0.1',
      '2001:4860:4860::8888',
      '::ffff:8.8.8.8',
      '::ffff:808:808',
      '64:ff9b::8.8.8.8',
      '2002:808:808::1',
    ])
      assert.equal(isInternalAddress(ip), false, ip);
    for (const host of ['localhost', 'api.localhost', '[::1]', 'metadata.google.internal', '10.0.0.5'])
      assert.equal(isInternalHost(host), true, host);
    assert.equal(isInternalHost('hooks.example.com'), false);
  });

  it('refuses an internal endpoint in production, allows it in the sandbox', async () => {
    for (const url of [
      'https://127.0.0.1/hook',
      'https://10.1.2.3/hook',
      'https://[::1]/hook',
      'https://localhost/hook',
      'https://169.254.169.254/latest/meta-data',
    ]) {
      const res = await p.prod.patch('/config', { webhookEndpoint: url });
      assert.equal(res.status, 400, url);
      assert.deepEqual([res.body.details.field, res.body.details.rule], ['webhookEndpoint', 'publicAddress']);
    }
    assert.equal((await p.prod.patch('/config', { webhookEndpoint: 'https://hooks.example.com/payouts' })).status, 200);
    assert.equal(
      (await p.api.patch('/config', { webhookEndpoint: 'http://127.0.0.1:9/hook' })).status,
      200,
      'the sandbox talks to your laptop',
    );
  });

  it('checks the address each production attempt connects to, not an earlier lookup', async () => {
    const post = { body: Buffer.from('{}'), headers: {}, timeoutMs: 2000, clockMs: Date.now, publicOnly: true };
    const refused = await postWebhook({ ...post, url: 'https://localhost:9/hook' });
    assert.equal(refused.status, null);
    assert.match(refused.error!, /internal address/);
    const unresolvable = await postWebhook({ ...post, url: 'https://no-such-host.invalid/hook' });
    assert.match(unresolvable.error!, /ENOTFOUND/);

    // A real receiver on loopback, reached through a name that a resolver of the test's own maps to it:
    // what a public name rebound to an internal address looks like to the socket.
    const received: string[] = [];
    const receiver = createServer((req, res) => {
      received.push(req.url ?? '');
      res.end('ok');
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    const rebound: Resolve = (_host, _options, done) => done(null, [{ address: '127.0.0.1', family: 4 }]);
    const url = `http://hooks.rebound.test:${port}/hook`;
    try {
      const blocked = await postWebhook({ ...post, url, agent: publicOnlyAgent(rebound) });
      assert.deepEqual([blocked.status, received], [null, []], 'nothing reached the receiver');
      assert.match(blocked.error!, /hooks\.rebound\.test resolves to the internal address 127\.0\.0\.1/);
      // The same name through a lookup that does not check: the receiver answers, so the refusal above
      // was the check, not a broken setup.
      const unchecked: LookupFunction = (_host, options, callback) =>
        options.all
          ? (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, [
              { address: '127.0.0.1', family: 4 },
            ])
          : callback(null, '127.0.0.1', 4);
      const reached = await postWebhook({ ...post, url, agent: new Agent({ connect: { lookup: unchecked } }) });
      assert.deepEqual([reached.status, received], [200, ['/hook']]);
    } finally {
      receiver.close();
    }
  });

  it('holds the sandbox to the same rule when the operator says so (a hosted sandbox)', async () => {
    const hosted = await startServer({ RUN_WORKERS: 'false', SANDBOX_WEBHOOKS_PUBLIC_ONLY: 'true' });
    try {
      const q = await hosted.platform();
      for (const url of ['http://127.0.0.1:9/hook', 'http://[::ffff:7f00:1]/hook', 'http://10.0.0.2/hook']) {
        const res = await q.api.patch('/config', { webhookEndpoint: url });
        assert.deepEqual([res.status, res.body.details?.rule], [400, 'publicAddress'], url);
        const test = await q.api.post('/webhooks/test', { url });
        assert.deepEqual([test.status, test.body.details?.rule], [400, 'publicAddress'], `test webhook to ${url}`);
      }
      assert.equal((await q.api.patch('/config', { webhookEndpoint: 'http://hooks.example.com/x' })).status, 200);
    } finally {
      await hosted.close();
    }
  });

  it('lets an operator allow internal receivers', async () => {
    const open = await startServer({ RUN_WORKERS: 'false', ALLOW_PRIVATE_WEBHOOK_URLS: 'true' });
    try {
      const q = await open.platform();
      assert.equal((await q.prod.patch('/config', { webhookEndpoint: 'https://10.1.2.3/hook' })).status, 200);
    } finally {
      await open.close();
    }
  });
});
