import { after, before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { API, basicAuth, client, createTestDatabase, type TestDatabase } from '../helpers/harness.ts';
import { runCliOk, spawnServer, type ServerProcess } from '../helpers/processes.ts';
import { rawRequest, rawWithBody } from './raw-http.ts';

/**
 * A real server at LOG_LEVEL=trace, its log read from its stdout: neither a client secret nor the
 * Authorization header that carries it appears, whatever path the request takes (ordinary, refused,
 * multipart, unparseable by Node, too large).
 */
describe('no credential reaches the log, at any level', () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let secret: string;
  let header: string;
  let port: number;
  before(async () => {
    database = await createTestDatabase();
    const env = { ...process.env, ...database.env };
    await runCliOk(['migrate'], env);
    const created = JSON.parse((await runCliOk(['platforms', 'create', '--name', 'logs', '--json'], env)).stdout);
    secret = created.sandbox.clientSecret;
    header = basicAuth(created.sandbox);
    server = await spawnServer({ ...database.env, LOG_LEVEL: 'trace' });
    port = server.port;
  });
  after(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('not in the log lines of many kinds of request', async () => {
    const api = client(server.baseUrl, header);
    assert.equal((await api.get('/customers')).status, 200, 'an ordinary request');
    await api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'a\u0000', clientSecret: secret });
    await api.post('/tokens', { name: 'second', permissions: ['VIEW'], secret });
    await api.post('/customers', '{"clientSecret": ');
    await rawRequest(
      port,
      rawWithBody('POST', `${API}/documents`, { authorization: header, 'content-type': 'multipart/form-data' }, 'x'),
    );
    await rawRequest(
      port,
      rawWithBody(
        'POST',
        `${API}/documents`,
        { authorization: header, 'content-type': 'multipart/form-data; boundary=B', cookie: `s=${secret}` },
        `--B\r\nContent-Disposition: form-data; name="clientSecret"\r\n\r\n${secret}\r\n--B--\r\n`,
      ),
    );
    await rawRequest(
      port,
      `GET ${API}/customers HTTP/1.1\r\nauthorization: ${header}\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    await rawRequest(port, `GET ${API}/customers HTTP/1.1\r\nauthorization: ${header}\r\nbroken header\r\n\r\n`);
    await rawRequest(port, `GET ${API}/customers?${'q'.repeat(70_000)} HTTP/1.1\r\nauthorization: ${header}\r\n\r\n`);

    const lines = server
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'));
    assert.ok(lines.length > 10, `the server logged at trace (${lines.length} lines)`);
    assert.ok(
      lines.some((l) => l.includes('busboyOptions')),
      'the multipart plugin logged its options, headers included',
    );
    const encoded = header.slice('Basic '.length);
    for (const line of lines) {
      assert.ok(!line.includes(secret), `a log line holds the client secret: ${line.slice(0, 300)}`);
      assert.ok(!line.includes(encoded), `a log line holds the Authorization header: ${line.slice(0, 300)}`);
      assert.ok(!line.includes('rawPacket":{'), `a log line holds the raw request bytes: ${line.slice(0, 300)}`);
    }
  });
});
