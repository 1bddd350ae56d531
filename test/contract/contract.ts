/**
 * The newest public contract (../shared/reference/grid-openapi-2026-08.yaml) as a validator: given a
 * request or a response the service sent, it names every way the message breaks the contract.
 *
 * Discriminator-aware: a `oneOf` with a `discriminator` mapping is checked against the one branch the
 * discriminator names, as typed clients pick it, instead of "exactly one branch matches", which
 * reports every branch's complaints and fails whenever two branches both fit.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

const CONTRACT_FILE = join('shared', 'reference', 'grid-openapi-2026-08.yaml');

/**
 * The contract is third-party text, so it is not part of this repository: it is read from
 * `PAYOUTS_CONTRACT`, or from `shared/reference/` beside any folder above the checkout (where the
 * workspace keeps it). Not finding it fails the test that needs it, rather than skipping it.
 */
function contractPath(): string {
  if (process.env.PAYOUTS_CONTRACT) return process.env.PAYOUTS_CONTRACT;
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const candidate = join(dir, CONTRACT_FILE);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) break;
  }
  if (existsSync(join('/work', CONTRACT_FILE))) return join('/work', CONTRACT_FILE);
  throw new Error(`the public contract ${CONTRACT_FILE} was not found above the checkout; set PAYOUTS_CONTRACT`);
}
const DOC_ID = 'contract.json';

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Rewrites every discriminated oneOf into "the property is one of the mapped values, then that branch". */
function pickBranchesByDiscriminator(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(pickBranchesByDiscriminator);
  if (!isNode(value)) return value;
  const node: Node = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, pickBranchesByDiscriminator(v)]));
  const discriminator = node.discriminator as { propertyName: string; mapping?: Record<string, string> } | undefined;
  if (!discriminator) return node;
  delete node.discriminator;
  if (!discriminator.mapping || !Array.isArray(node.oneOf)) return node;
  const { propertyName: name, mapping } = discriminator;
  delete node.oneOf;
  const branches = Object.entries(mapping).map(([tag, ref]) => ({
    if: { properties: { [name]: { const: tag } }, required: [name] },
    // oxlint-disable-next-line unicorn/no-thenable -- JSON Schema's keyword, never awaited
    then: { $ref: ref },
  }));
  node.allOf = [
    ...((node.allOf as unknown[]) ?? []),
    { required: [name], properties: { [name]: { enum: Object.keys(mapping) } } },
    ...branches,
  ];
  return node;
}

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  params: number;
  spec: Node;
}

export interface Contract {
  /** The violations of a response body, or a sentence saying the contract has no such operation or status. */
  checkResponse(method: string, path: string, status: number, body: unknown): string[];
  /** The violations of a request body against the operation's request schema. */
  checkRequest(method: string, path: string, body: unknown): string[];
  /** The violations of a webhook body against the contract's webhook of that name (`outgoing-payment`). */
  checkWebhook(name: string, body: unknown): string[];
  /** Whether the contract has this operation at all. */
  has(method: string, path: string): boolean;
  /** The contract as published (discriminators untouched), for walking its schemas. */
  document: Node;
}

const pointer = (...parts: string[]) =>
  `${DOC_ID}#/${parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

function describe(errors: ErrorObject[] | null | undefined): string[] {
  // An if/then branch failing repeats itself as "must match then": the inner error already says why.
  return (errors ?? [])
    .filter((e) => e.keyword !== 'if')
    .map((e) => {
      const extra =
        e.keyword === 'additionalProperties'
          ? ` (${String(e.params.additionalProperty)})`
          : e.keyword === 'enum'
            ? ` (got ${JSON.stringify(e.data)})`
            : '';
      return `${e.instancePath || '/'} ${e.message ?? e.keyword}${extra}`;
    });
}

/** Every operation of the document, a literal segment before a parameter (`/customers/external-accounts`). */
function listOperations(doc: Node): Operation[] {
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths as Record<string, Node>)) {
    for (const [method, spec] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
      const params = (template.match(/\{/g) ?? []).length;
      operations.push({ method, template, pattern: new RegExp(`^${source}$`), params, spec: spec as Node });
    }
  }
  operations.sort((a, b) => a.params - b.params);
  return operations;
}

let loaded: Contract | undefined;

export function loadContract(): Contract {
  if (loaded) return loaded;
  const document = parse(readFileSync(contractPath(), 'utf8')) as Node;
  const doc = pickBranchesByDiscriminator(document) as Node;
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    verbose: true,
    validateSchema: false,
    discriminator: false,
  });
  addFormats.default(ajv);
  for (const format of ['int64', 'int32', 'double', 'float', 'binary']) ajv.addFormat(format, true);
  ajv.addSchema({ ...doc, $id: DOC_ID });

  const operations = listOperations(doc);

  const compiled = new Map<string, ValidateFunction>();
  const validator = (ref: string) => {
    let fn = compiled.get(ref);
    if (!fn) {
      fn = ajv.compile({ $ref: ref });
      compiled.set(ref, fn);
    }
    return fn;
  };
  const find = (method: string, path: string) => {
    const bare = path.split('?')[0]?.replace(/^\/2025-10-13/, '') ?? path;
    return operations.find((op) => op.method === method.toLowerCase() && op.pattern.test(bare));
  };
  const run = (ref: string, body: unknown) => {
    const fn = validator(ref);
    return fn(body) ? [] : describe(fn.errors);
  };

  loaded = {
    document,
    has: (method, path) => find(method, path) !== undefined,
    checkResponse(method, path, status, body) {
      const op = find(method, path);
      if (!op) return [`${method} ${path} is not an operation of the contract`];
      const responses = op.spec.responses as Record<string, Node>;
      const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => responses[k]);
      if (!key) return [`${method} ${op.template} has no ${status} response in the contract`];
      const content = responses[key]?.content as Record<string, Node> | undefined;
      if (!content?.['application/json']) return body === undefined || body === '' ? [] : ['body where none is due'];
      return run(
        pointer('paths', op.template, op.method, 'responses', key, 'content', 'application/json', 'schema'),
        body,
      );
    },
    checkRequest(method, path, body) {
      const op = find(method, path);
      if (!op) return [`${method} ${path} is not an operation of the contract`];
      const content = (op.spec.requestBody as Node | undefined)?.content as Record<string, Node> | undefined;
      if (!content?.['application/json']) return [];
      return run(
        pointer('paths', op.template, op.method, 'requestBody', 'content', 'application/json', 'schema'),
        body,
      );
    },
    checkWebhook(name, body) {
      return run(pointer('webhooks', name, 'post', 'requestBody', 'content', 'application/json', 'schema'), body);
    },
  };
  return loaded;
}
