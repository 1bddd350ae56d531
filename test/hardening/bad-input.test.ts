import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { API, basicAuth, useServer, type TestPlatform } from '../helpers/harness.ts';
import { sendForm } from '../identity/fixtures.ts';
import { rawRequest, rawWithBody, type RawAnswer } from './raw-http.ts';

type Answer = { status: number; body: any };

function assertShape(res: Answer, status: number, code: string, what: string) {
  assert.equal(res.status, status, `${what}: status (body ${JSON.stringify(res.body)})`);
  assert.equal(typeof res.body, 'object', `${what}: a JSON body (got ${JSON.stringify(res.body)})`);
  assert.equal(res.body.status, status, `${what}: body.status`);
  assert.equal(res.body.code, code, `${what}: body.code`);
  assert.equal(typeof res.body.message, 'string', `${what}: body.message`);
  const extra = Object.keys(res.body).filter((k) => !['status', 'code', 'message', 'details'].includes(k));
  assert.deepEqual(extra, [], `${what}: nothing outside {status, code, message, details}`);
}

/** Bad input is refused the same way on SQLite and PostgreSQL: a 400 naming the field, never a 5xx. */
describe('bad input: text no engine can store', () => {
  let p: TestPlatform;
  let customerId: string;
  const server = useServer();
  before(async () => {
    p = await server.platform();
    const created = await p.api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'plain' });
    assert.equal(created.status, 201, 'a customer to read back');
    customerId = created.body.id;
  });

  const customerCount = async () =>
    Number(
      (
        await server.app.store.db
          .selectFrom('customers')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('NUL and lone surrogates in a JSON body are a 400 that names the field', async () => {
    const countBefore = await customerCount();
    const cases: [string, string][] = [
      ['{"customerType":"INDIVIDUAL","platformCustomerId":"a\\u0000b"}', 'platformCustomerId'],
      ['{"customerType":"INDIVIDUAL","platformCustomerId":"a\\ud800b"}', 'platformCustomerId'],
      ['{"customerType":"INDIVIDUAL","platformCustomerId":"\\udc00"}', 'platformCustomerId'],
      [
        '{"customerType":"INDIVIDUAL","platformCustomerId":"x",' +
          '"address":{"line1":"\\u0000","postalCode":"1","country":"US"}}',
        'address.line1',
      ],
      ['{"customerType":"INDIVIDUAL","platformCustomerId":"x","a\\u0000":1}', 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await p.api.post('/customers', body);
      assertShape(res, 400, 'INVALID_INPUT', body);
      assert.equal(res.body.details.field, field, `${body}: the field`);
      assert.equal(res.body.details.rule, 'storableText', `${body}: the rule`);
    }
    // A surrogate pair (an emoji) is fine text.
    const emoji = await p.api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'ok-\u{1F600}' });
    assert.equal(emoji.status, 201, 'a well-formed surrogate pair is stored');
    assert.equal(emoji.body.platformCustomerId, 'ok-\u{1F600}', 'and read back as sent');
    assert.equal(await customerCount(), countBefore + 1, 'only the well-formed customer was stored');
  });

  it('in a query string or a path parameter too', async () => {
    const query = await p.api.get('/customers?platformCustomerId=a%00b');
    assertShape(query, 400, 'INVALID_INPUT', 'query NUL');
    assert.deepEqual(
      [query.body.details.field, query.body.details.location],
      ['platformCustomerId', 'querystring'],
      'query field and location',
    );
    const surrogate = await p.api.get(`/customers?platformCustomerId=${encodeURIComponent('x')}%ED%A0%80`);
    assert.ok(surrogate.status === 400, `encoded surrogate in a query: ${JSON.stringify(surrogate.body)}`);
    const path = await p.api.get(`/customers/${encodeURIComponent(customerId)}%00`);
    assertShape(path, 400, 'INVALID_INPUT', 'path NUL');
    assert.deepEqual([path.body.details.field, path.body.details.location], ['customerId', 'params'], 'path field');
    const badEncoding = await p.api.get('/customers/%E0%A4%A');
    assertShape(badEncoding, 400, 'INVALID_INPUT', 'path that is not percent-encoded UTF-8');
  });

  it('JSON bodies must be UTF-8', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"customerType":"INDIVIDUAL","platformCustomerId":"a'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);
    const res = await rawRequest(
      Number(new URL(server.baseUrl).port),
      rawWithBody(
        'POST',
        `${API}/customers`,
        { authorization: basicAuth(p.sandbox), 'content-type': 'application/json' },
        bytes,
      ),
    );
    assertShape(res, 400, 'INVALID_INPUT', 'bad UTF-8');
    assert.equal(res.body.details.rule, 'utf8', 'the rule names UTF-8');
  });

  it('multipart text fields follow the same rule', async () => {
    const res = await sendForm(server, p.sandbox, 'POST', '/documents', {
      documentType: 'PASSPORT',
      country: 'US',
      documentHolder: `${customerId}\u0000`,
    });
    assertShape(res, 400, 'INVALID_INPUT', 'multipart NUL');
    assert.equal(res.body.details.field, 'documentHolder', 'the multipart field');
  });
});

describe('bad input: malformed multipart bodies are 400s in the error shape', () => {
  let p: TestPlatform;
  let port: number;
  const server = useServer();
  before(async () => {
    p = await server.platform();
    port = Number(new URL(server.baseUrl).port);
  });

  const part = (name: string, value: string, extra = '') =>
    `--B\r\nContent-Disposition: form-data; name="${name}"${extra}\r\n\r\n${value}\r\n`;
  const bodies: [string, string, string][] = [
    ['no boundary', 'multipart/form-data', 'garbage'],
    ['cut short', 'multipart/form-data; boundary=B', `${part('documentType', 'PASSPORT')}--B\r\nContent-Dis`],
    ['no closing boundary', 'multipart/form-data; boundary=B', part('documentType', 'PASSPORT')],
    ['empty', 'multipart/form-data; boundary=B', ''],
    ['only the end', 'multipart/form-data; boundary=B', '--B--\r\n'],
    ['a part with no headers', 'multipart/form-data; boundary=B', '--B\r\n\r\nvalue\r\n--B--\r\n'],
    ['a header with no colon', 'multipart/form-data; boundary=B', '--B\r\nnonsense\r\n\r\nvalue\r\n--B--\r\n'],
    [
      'a file cut short',
      'multipart/form-data; boundary=B',
      '--B\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n' +
        'Content-Type: application/pdf\r\n\r\n%PDF-1.4 abc',
    ],
    ['a boundary of 200 characters', `multipart/form-data; boundary=${'x'.repeat(200)}`, 'x'],
    [
      'bytes that are not UTF-8 in a field',
      'multipart/form-data; boundary=B',
      `${part('country', '\xff\xfe')}--B--\r\n`,
    ],
  ];

  for (const [what, contentType, body] of bodies) {
    it(what, async () => {
      const res: RawAnswer = await rawRequest(
        port,
        rawWithBody(
          'POST',
          `${API}/documents`,
          { authorization: basicAuth(p.sandbox), 'content-type': contentType },
          Buffer.from(body, 'latin1'),
        ),
      );
      assert.ok(res.status >= 400 && res.status < 500, `${what}: a 4xx, got ${res.status} ${res.text}`);
      assertShape(res, res.status, res.body?.code, what);
    });
  }
});

/** What Fastify and Node's HTTP parser answer on their own has the one error shape as well. */
describe('framework answers have the error shape', () => {
  let p: TestPlatform;
  let port: number;
  const server = useServer({ BODY_LIMIT_BYTES: '2048' });
  before(async () => {
    p = await server.platform();
    port = Number(new URL(server.baseUrl).port);
  });

  it('400 bad JSON, 404, 405, 413, 415', async () => {
    assertShape(await p.api.post('/customers', '{"a":'), 400, 'INVALID_INPUT', 'bad JSON');
    assertShape(await p.api.get('/nowhere'), 404, 'REFERENCE_NOT_FOUND', 'unknown route');
    assertShape(await p.api.request('PUT', '/customers'), 405, 'METHOD_NOT_ALLOWED', 'wrong method');
    assertShape(await p.api.post('/customers', 'x'.repeat(5000)), 413, 'PAYLOAD_TOO_LARGE', 'large body');
    assertShape(await p.api.post('/nowhere', 'x'.repeat(5000)), 413, 'PAYLOAD_TOO_LARGE', 'large body, no route');
    assertShape(
      await p.api.post('/customers', 'a=b', { 'content-type': 'application/x-www-form-urlencoded' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'form body',
    );
  });

  it('414 for a URL too long, before and after Node parses it', async () => {
    assertShape(await p.api.get(`/customers?platformCustomerId=${'a'.repeat(9000)}`), 414, 'URI_TOO_LONG', '9 KB');
    const huge = await rawRequest(port, `GET ${API}/customers?x=${'a'.repeat(70_000)} HTTP/1.1\r\nhost: x\r\n\r\n`);
    assertShape(huge, 414, 'URI_TOO_LONG', '70 KB URL');
    assertShape(await p.api.get(`/customers/${'c'.repeat(600)}`), 414, 'URI_TOO_LONG', 'path parameter too long');
  });

  it('431 for headers too large', async () => {
    const res = await rawRequest(
      port,
      `GET ${API}/customers HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    assertShape(res, 431, 'REQUEST_HEADER_FIELDS_TOO_LARGE', 'large header');
  });

  it('400 for a request Node cannot parse', async () => {
    for (const request of [
      'NOT A REQUEST\r\n\r\n',
      `GET ${API}/customers HTTP/1.1\r\nbad header\r\n\r\n`,
      `GET ${API}/customers HTTP/1.1\r\nhost: x\r\nx-a: a\u0000b\r\n\r\n`,
      `POST ${API}/customers HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n`,
    ]) {
      assertShape(await rawRequest(port, request), 400, 'INVALID_INPUT', JSON.stringify(request.slice(0, 40)));
    }
  });
});

/** Input whose shape, not its text, is the problem: bounds on JSON bodies, and cursors a client forged. */
describe('bad input: JSON past its bounds and forged cursors', () => {
  const server = useServer({ RUN_WORKERS: 'false' });
  let p: TestPlatform;
  before(async () => {
    p = await server.platform();
  });

  const nested = (levels: number, open = '[', close = ']', inner = '') =>
    `${open.repeat(levels)}${inner}${close.repeat(levels)}`;

  it('a JSON body nested thousands of levels deep is a 400 naming the depth limit, on every route', async () => {
    const doc = await p.api.get(`${API}/openapi.json`);
    const routes = Object.entries<Record<string, any>>(doc.body.paths).flatMap(([path, item]) =>
      Object.entries<any>(item)
        .filter(([method]) => method !== 'get')
        .map(([method]) => [method.toUpperCase(), path.replace(/\{[^}]+\}/g, 'x')] as const),
    );
    assert.ok(routes.length > 40, `the document lists the routes that take a body (${routes.length})`);
    const deep = nested(5000);
    for (const [method, path] of routes) {
      const res = await p.api.request(method, path, deep);
      assertShape(res, 400, 'INVALID_INPUT', `${method} ${path} with 5,000 levels`);
      assert.deepEqual(
        [res.body.details.rule, res.body.details.limit],
        ['json.depth', 64],
        `${method} ${path}: the limit named`,
      );
    }
    const objects = await p.api.post(
      '/customers',
      `{"customerType":"INDIVIDUAL","a":${nested(4000, '{"b":', '}', '0')}}`,
    );
    assertShape(objects, 400, 'INVALID_INPUT', 'objects nested 4,000 levels');
    assert.match(objects.body.details.field, /^a\.b\.b\.b/, 'the field is where the depth was passed');
  });

  it('up to the bounds a body reaches validation; one past them is refused by name', async () => {
    const atDepth = await p.api.post('/customers', { customerType: 'INDIVIDUAL', extra: JSON.parse(nested(63)) });
    assertShape(atDepth, 400, 'INVALID_INPUT', '64 levels');
    assert.notEqual(atDepth.body.details.rule, 'json.depth', '64 levels are within the bound');
    const keys = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, i]));
    const wide = await p.api.post('/customers', { customerType: 'INDIVIDUAL', address: keys });
    assertShape(wide, 400, 'INVALID_INPUT', '1,001 keys');
    assert.deepEqual([wide.body.details.field, wide.body.details.rule], ['address', 'json.keys'], 'keys named');
    const long = await p.api.post('/customers', {
      customerType: 'INDIVIDUAL',
      list: Array.from({ length: 10_001 }, () => 0),
    });
    assertShape(long, 400, 'INVALID_INPUT', '10,001 items');
    assert.deepEqual([long.body.details.field, long.body.details.rule], ['list', 'json.items'], 'items named');
    assert.equal((await p.api.get('/customers')).body.data.length, 0, 'nothing was stored');
  });

  it('a cursor that decodes to text no engine can store, or to the wrong shape, is a 400 on every list', async () => {
    const doc = await p.api.get(`${API}/openapi.json`);
    const lists = Object.entries<Record<string, any>>(doc.body.paths)
      .filter(([path, item]) => !path.includes('{') && item.get?.parameters?.some((q: any) => q.name === 'cursor'))
      .map(([path]) => path);
    assert.ok(lists.length >= 10, `the document lists the paged routes (${lists.length})`);
    const forge = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const forged = [
      forge({ t: '9999999999999999', id: '\u0000' }),
      forge({ t: '1', id: 'a\ud800' }),
      forge({ after: '\u0000' }),
      forge({ after: '\udc00x' }),
      forge({ t: 1, id: 2 }),
      forge(null),
      forge('text'),
      '!!!',
    ];
    for (const path of lists) {
      for (const cursor of forged) {
        const res = await p.api.get(`${path}?cursor=${cursor}`);
        const what = `${path} cursor ${Buffer.from(cursor, 'base64url').toString('utf8')}`;
        assertShape(res, 400, 'INVALID_INPUT', what);
        assert.equal(res.body.details.field, 'cursor', `${what}: the field`);
      }
    }
  });
});
