// Malformed requests for every operation of an OpenAPI document, generated with fast-check from a seed.
// Each case carries one defect the server must refuse (so no case may change the database) and, at
// random, noise on top: wrong types, huge strings, extra fields, odd headers.
import fc from 'fast-check';

type Schema = Record<string, any>;

export interface Operation {
  method: string;
  /** The document's path template, such as `/customers/{customerId}`. */
  path: string;
  pathParams: string[];
  queryParams: string[];
  /** The JSON body's schema, when the operation takes one. */
  jsonBody: Schema | undefined;
  /** POST/PUT/PATCH without a JSON body: multipart uploads and bodiless actions. */
  otherBody: boolean;
}

export interface FuzzCase {
  method: string;
  /** Path and query string, already encoded as they go on the request line. */
  target: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  /** What was sent, for a failure message. */
  what: string;
}

export function operationsOf(doc: Schema): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Schema>(doc.paths)) {
    for (const [method, op] of Object.entries<Schema>(item)) {
      const params: Schema[] = op.parameters ?? [];
      const jsonBody = op.requestBody?.content?.['application/json']?.schema;
      ops.push({
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
        jsonBody,
        otherBody: !jsonBody && ['POST', 'PUT', 'PATCH'].includes(method.toUpperCase()),
      });
    }
  }
  return ops;
}

const limitedString = (max = 24) => fc.string({ maxLength: max, unit: 'binary' });
const hugeString = fc.integer({ min: 10_000, max: 60_000 }).map((n) => 'x'.repeat(n));
const unstorable = fc.constantFrom('\u0000', '\ud800', '\udfff', 'a\u0000b', '\udbff!');

function stringFor(schema: Schema): fc.Arbitrary<string> {
  switch (schema.format) {
    case 'date-time':
      return fc.constant('2026-01-02T03:04:05.000Z');
    case 'date':
      return fc.constant('1990-01-02');
    case 'email':
      return fc.constant('a@example.com');
    case 'uri':
      return fc.constant('https://example.com/hook');
    default:
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 12, 24) });
  }
}

/** A value shaped roughly like the schema (close enough to get past the first checks, not always valid). */
export function valueFor(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 5) return fc.constant(null);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives)) return fc.oneof(...alternatives.map((s: Schema) => valueFor(s, depth + 1)));
  if (Array.isArray(schema.allOf)) return valueFor(Object.assign({}, ...schema.allOf), depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return stringFor(schema);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? 0, max: Math.min(schema.maximum ?? 100_000, 2 ** 40) });
    case 'number':
      return fc.double({ min: 0, max: 1000, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(valueFor(schema.items, depth + 1), { maxLength: 3 });
    case 'object': {
      const properties: Record<string, Schema> = schema.properties ?? {};
      const model = Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, valueFor(s, depth + 1)]));
      return fc.record(model, { requiredKeys: (schema.required ?? []).filter((k: string) => k in properties) });
    }
    default:
      return fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant(null));
  }
}

/** Every place in a JSON value that holds a string, as a path of keys. */
function stringPaths(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (typeof value === 'string') return [path];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => stringPaths(v, [...path, Array.isArray(value) ? Number(k) : k]));
}

type Json = Record<string, unknown> | unknown[];

function setAt(root: unknown, path: (string | number)[], replace: (old: unknown) => unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined || root === null || typeof root !== 'object') return replace(root);
  const copy: Json = Array.isArray(root) ? [...root] : { ...(root as Record<string, unknown>) };
  const record = copy as Record<string | number, unknown>;
  record[head] = setAt(record[head], rest, replace);
  return copy;
}

/** Noise that keeps the defect intact: a wrong type somewhere, a huge string, an extra field. */
const bodyNoise = fc.constantFrom('none', 'wrongType', 'huge', 'extra', 'nested');
function addNoise(body: unknown, noise: string, huge: string): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const keys = Object.keys(body);
  const first = keys[0];
  switch (noise) {
    case 'wrongType':
      return first
        ? { ...body, [first]: typeof (body as Record<string, unknown>)[first] === 'number' ? 'not a number' : 12.5 }
        : body;
    case 'huge':
      return { ...body, [first ?? 'note']: huge };
    case 'extra':
      return { ...body, unexpectedField: { deep: [1, 'two', null] } };
    case 'nested':
      // Deep, but inside the bound on nesting, so the defect stays the one refused.
      return { ...body, [first ?? 'x']: JSON.parse(`${'['.repeat(40)}${']'.repeat(40)}`) };
    default:
      return body;
  }
}

/** A JSON body with one defect the server must refuse. */
function defectiveJson(schema: Schema): fc.Arbitrary<{ body: Buffer; what: string; contentType?: string }> {
  const json = (value: unknown, what: string) => ({ body: Buffer.from(JSON.stringify(value)), what });
  const base = valueFor(schema);
  return fc.oneof(
    // Text no engine can store, in a string leaf or as a property name.
    fc.tuple(base, unstorable, fc.nat(), bodyNoise, hugeString).map(([value, bad, pick, noise, huge]) => {
      const noisy = addNoise(value, noise, huge);
      const paths = stringPaths(noisy);
      if (paths.length === 0 || pick % 4 === 0) {
        const obj = noisy !== null && typeof noisy === 'object' ? noisy : {};
        return json({ ...obj, [`k${bad}`]: 1 }, `unstorable property name, ${noise}`);
      }
      const path = paths[pick % paths.length]!;
      return json(
        setAt(noisy, path, (old) => `${String(old).slice(0, 5)}${bad}`),
        `unstorable text at ${path.join('.')}, ${noise}`,
      );
    }),
    // Past the bounds on shape: nested thousands of levels (arrays or objects), too many keys or items.
    fc.tuple(fc.integer({ min: 65, max: 6000 }), fc.constantFrom('[', '{"a":'), fc.nat()).map(([n, open, at]) => {
      const close = open === '[' ? ']' : '}';
      const deep = `${open.repeat(n)}${open === '[' ? '' : '0'}${close.repeat(n)}`;
      return { body: Buffer.from(at % 2 ? deep : `{"x":${deep}}`), what: `nested ${n} levels of ${open}` };
    }),
    fc.constantFrom(1001, 5000).map((n) => ({
      body: Buffer.from(`{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`),
      what: `an object of ${n} keys`,
    })),
    fc.constantFrom(10_001, 50_000).map((n) => ({
      body: Buffer.from(`{"list":[${Array.from({ length: n }, () => 0).join(',')}]}`),
      what: `an array of ${n} items`,
    })),
    // Not JSON: cut short, trailing garbage, a lone token.
    fc.tuple(base, fc.nat({ max: 40 })).map(([value, cut]) => {
      // A strict prefix followed by a comma is never JSON, whatever the prefix.
      const text = JSON.stringify(value);
      return { body: Buffer.from(`${text.slice(0, Math.min(cut, text.length - 1))},`), what: 'JSON cut short' };
    }),
    fc.constantFrom('{', '[', '{"a":}', 'nul', "{'a':1}", '{"a":1}}', '\u00ff').map((text) => ({
      body: Buffer.from(text),
      what: `not JSON: ${text}`,
    })),
    // Bytes that are not UTF-8 inside an otherwise plausible body.
    fc.constantFrom([0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80]).map((bytes) => ({
      body: Buffer.concat([Buffer.from('{"name":"a'), Buffer.from(bytes), Buffer.from('"}')]),
      what: `bad UTF-8 ${bytes.join(',')}`,
    })),
    // Not the type the body must be at all.
    fc.constantFrom('[]', '"text"', '12', 'true', '[{"a":1}]').map((text) => ({
      body: Buffer.from(text),
      what: `body is ${text}`,
    })),
    // A body in a type the server does not read.
    fc.constantFrom('text/plain', 'application/xml', 'application/x-www-form-urlencoded').map((contentType) => ({
      body: Buffer.from('a=b'),
      what: `content-type ${contentType}`,
      contentType,
    })),
  );
}

const MULTIPART_FIELDS = ['documentType', 'country', 'documentHolder', 'side', 'documentNumber'];

/** A multipart body with a defect: unreadable framing, or a text field no engine can store. */
const defectiveMultipart = fc
  .oneof(
    fc.constantFrom(
      ['multipart/form-data', 'garbage'],
      ['multipart/form-data; boundary=B', '--B\r\nContent-Disposition: form-data; name="country"\r\n\r\nUS'],
      ['multipart/form-data; boundary=B', '--B\r\n\r\n\r\n--B--'],
      ['multipart/form-data; boundary=B', '--B\r\nbroken header\r\n\r\nx\r\n--B--\r\n'],
      ['multipart/form-data; boundary=B', ''],
      ['multipart/form-data; boundary=', '--\r\n'],
      [
        'multipart/form-data; boundary=B',
        '--B\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF',
      ],
    ),
    fc
      .tuple(fc.constantFrom(...MULTIPART_FIELDS), unstorable, limitedString(8))
      .map(([name, bad, text]) => [
        'multipart/form-data; boundary=B',
        `--B\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${text}${bad}\r\n--B--\r\n`,
      ]),
  )
  .map(([contentType, body]) => ({
    contentType: contentType!,
    body: Buffer.from(body!, 'utf8'),
    what: `multipart ${JSON.stringify(body!.slice(0, 60))}`,
  }));

/** A cursor a client forged: it decodes to text no engine can store, or to a shape this server never wrote. */
const forge = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const forgedCursor = fc.oneof(
  fc
    .tuple(fc.constantFrom('id', 'after'), unstorable, fc.constantFrom('1', '9999999999999999'))
    .map(([field, bad, t]) => forge(field === 'id' ? { t, id: `c${bad}` } : { after: bad })),
  fc.constantFrom(forge({ t: 1, id: 2 }), forge(null), forge([]), forge({ t: '-1', id: 'x' }), '%2F%2F', 'AAAA'),
);

/** A path parameter or query string the server must refuse. */
const badPathValue = fc.constantFrom('%00', 'a%00b', '%FF', '%E0%A4%A', '%ED%A0%80', 'x'.repeat(600), '%C0%AF');
const badQueryValue = fc.constantFrom('%00', 'a%00b', '%FF', '%ED%A0%80', '%E0%A4%A', '%C3%28');
const noiseQueryValue = fc.oneof(
  fc.constantFrom('-1', '1e309', 'true', 'null', '', '[]', '%20', '9'.repeat(40), 'a,b,,c'),
  fc.string({ maxLength: 10 }).map(encodeURIComponent),
);

const oddHeaders = fc.oneof(
  fc.constant({}),
  fc.constant({ 'idempotency-key': 'k'.repeat(300) }),
  fc.constant({ 'idempotency-key': '' }),
  fc.constant({ 'idempotency-key': '\u00e9\u00ff' }),
  fc.constant({ accept: 'text/html' }),
  fc.constant({ 'x-request-id': 'r'.repeat(2000) }),
  fc.constant({ 'content-encoding': 'gzip' }),
  fc.constant({ 'accept-encoding': 'br;q=2' }),
);

export interface CaseContext {
  /** The Authorization header of a token that may call everything in the sandbox. */
  authorization: string;
  /** Real ids by path parameter name, so some cases get past "not found". */
  ids: Record<string, string>;
  apiPrefix: string;
}

type Defect = {
  where: 'path' | 'query' | 'cursor' | 'body' | 'url';
  value: string;
  body?: Buffer;
  contentType?: string;
};

function defectsFor(op: Operation): fc.Arbitrary<Defect> {
  const options: fc.Arbitrary<Defect>[] = [
    badQueryValue.map((value) => ({ where: 'query', value })),
    fc.constant({ where: 'url', value: 'q'.repeat(9000) }),
  ];
  if (op.pathParams.length > 0) options.push(badPathValue.map((value) => ({ where: 'path', value })));
  if (op.queryParams.includes('cursor')) options.push(forgedCursor.map((value) => ({ where: 'cursor', value })));
  if (op.jsonBody) {
    const body = defectiveJson(op.jsonBody).map(
      (d): Defect => ({
        where: 'body',
        value: d.what,
        body: d.body,
        ...(d.contentType ? { contentType: d.contentType } : {}),
      }),
    );
    options.push(body, body, body);
  }
  if (op.otherBody) {
    options.push(
      defectiveMultipart.map(
        (d): Defect => ({ where: 'body', value: d.what, body: d.body, contentType: d.contentType }),
      ),
    );
  }
  return fc.oneof(...options);
}

/** Cases for one operation: its defect, real or junk ids, noisy query parameters, odd headers. */
export function casesFor(op: Operation, context: CaseContext): fc.Arbitrary<FuzzCase> {
  return fc
    .record({
      defect: defectsFor(op),
      useRealIds: fc.boolean(),
      junkId: fc.string({ minLength: 1, maxLength: 30 }),
      query: fc.array(fc.tuple(fc.constantFrom(...op.queryParams, 'limit', 'extra'), noiseQueryValue), {
        maxLength: 3,
      }),
      headers: oddHeaders,
    })
    .map(({ defect, useRealIds, junkId, query, headers }) => {
      let path = op.path;
      op.pathParams.forEach((name, i) => {
        const real = context.ids[name];
        const value =
          defect.where === 'path' && i === 0 ? defect.value : encodeURIComponent(useRealIds && real ? real : junkId);
        path = path.replace(`{${name}}`, value);
      });
      const pairs = query.map(([k, v]) => `${k}=${v}`);
      if (defect.where === 'query') pairs.push(`${op.queryParams[0] ?? 'q'}=${defect.value}`);
      if (defect.where === 'url') pairs.push(`pad=${defect.value}`);
      if (defect.where === 'cursor') pairs.push(`cursor=${defect.value}`);
      const target = `${context.apiPrefix}${path}${pairs.length ? `?${pairs.join('&')}` : ''}`;
      const body = defect.where === 'body' ? defect.body : undefined;
      const contentType = defect.contentType ?? (body ? 'application/json' : undefined);
      return {
        method: op.method,
        target,
        headers: {
          authorization: context.authorization,
          ...headers,
          ...(contentType ? { 'content-type': contentType } : {}),
        },
        body,
        what: `${op.method} ${op.path}: ${defect.where} defect ${defect.value.slice(0, 80)}`,
      };
    });
}
