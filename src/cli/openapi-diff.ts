// `payouts contract-check`'s comparison: two OpenAPI 3.x documents, operation by operation (method and path),
// as the drift report a user reads before upgrading. Pure: it reads the two parsed documents and nothing else.
//
// What it compares: the operations each has; per operation its parameters (added, removed, required changed,
// type or enum changed), its request body and its responses (statuses added or removed; per status the body's
// properties: added, removed, type or enum changed, required changed). Schemas are walked through $ref, allOf
// (merged), oneOf and anyOf (the union of the variants' properties), arrays (`items[]`), to a bounded depth.
// Descriptions, examples and formats are not compared: they do not change what a client sends or reads.

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

export type DriftChange = 'added' | 'removed' | 'type' | 'enum' | 'required';

/** One difference; `served` is the value in the served document, `other` in the one compared with. */
export interface Drift {
  /** `GET /customers/{customerId}` as the served document spells it (the other's spelling when only there). */
  operation: string;
  /** `operation`, `parameter query`, `request body`, `response 200`. */
  where: string;
  /** The parameter or property (`accountInfo.routingNumber`, `data[].status`); empty for the whole. */
  field: string;
  change: DriftChange;
  served: string;
  other: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
/** How deep properties are followed: enough for `data[].source.accountInfo.beneficiary.address`. */
const MAX_DEPTH = 7;

/** What one field is, as far as a client can tell: its types, its enum, whether it must be there. */
interface Shape {
  types: Set<string>;
  enum: string[] | undefined;
  required: boolean;
}

/** Follows local `$ref`s (`#/components/schemas/X`); a ref elsewhere is left as it is. */
function deref(doc: Node, value: unknown, seen = new Set<string>()): unknown {
  let current = value;
  while (isNode(current) && typeof current.$ref === 'string' && current.$ref.startsWith('#/')) {
    const ref = current.$ref;
    if (seen.has(ref)) return {};
    seen.add(ref);
    let target: unknown = doc;
    for (const raw of ref.slice(2).split('/')) {
      const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
      target = isNode(target) ? target[key] : undefined;
    }
    current = target;
  }
  return current;
}

/** The types a schema allows (`string`, `null`, `object`…), OpenAPI 3.0's `nullable` and 3.1's type lists alike. */
function typesOf(schema: Node): Set<string> {
  const types = new Set<string>();
  if (typeof schema.type === 'string') types.add(schema.type);
  if (Array.isArray(schema.type)) for (const t of schema.type) types.add(String(t));
  if (schema.nullable === true) types.add('null');
  if (schema.const !== undefined) types.add(schema.const === null ? 'null' : typeof schema.const);
  if (types.size === 0 && isNode(schema.properties)) types.add('object');
  return types;
}

interface Walk {
  doc: Node;
  out: Map<string, Shape>;
  seen: Set<unknown>;
}

/** Adds the fields of `schema` under `prefix` (`` for the body) to the walk's map. */
function collect(walk: Walk, raw: unknown, prefix: string, required: boolean, depth: number): void {
  const schema = deref(walk.doc, raw);
  if (!isNode(schema) || depth > MAX_DEPTH) return;
  const variants = [
    ...(Array.isArray(schema.oneOf) ? schema.oneOf : []),
    ...(Array.isArray(schema.anyOf) ? schema.anyOf : []),
  ];
  const parts = Array.isArray(schema.allOf) ? schema.allOf : [];
  const shape = walk.out.get(prefix) ?? { types: new Set<string>(), enum: undefined, required };
  for (const t of typesOf(schema)) shape.types.add(t);
  const values = Array.isArray(schema.enum) ? schema.enum : schema.const !== undefined ? [schema.const] : undefined;
  if (values) shape.enum = [...new Set([...(shape.enum ?? []), ...values.map((v) => String(v))])].sort();
  shape.required ||= required;
  if (prefix !== '') walk.out.set(prefix, shape);
  // A schema met again below itself (a tree of objects) is not walked twice.
  if (walk.seen.has(schema)) return;
  walk.seen.add(schema);
  for (const part of parts) collect(walk, part, prefix, required, depth);
  for (const variant of variants) collect(walk, variant, prefix, false, depth);
  const must = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  if (isNode(schema.properties))
    for (const [name, child] of Object.entries(schema.properties))
      collect(walk, child, prefix ? `${prefix}.${name}` : name, must.has(name), depth + 1);
  if (schema.items !== undefined) collect(walk, schema.items, `${prefix}[]`, false, depth + 1);
  walk.seen.delete(schema);
}

/** Every field of a body schema, by its path. */
function fieldsOf(doc: Node, schema: unknown): Map<string, Shape> {
  const walk: Walk = { doc, out: new Map(), seen: new Set() };
  collect(walk, schema, '', true, 0);
  // A variant's required is not the body's: a field is required only where every variant needs it.
  return walk.out;
}

const typeText = (s: Shape | undefined) => (s ? [...s.types].sort().join('|') || 'any' : '');
const enumText = (s: Shape | undefined) => (s?.enum ? s.enum.join(', ') : '');
const requiredText = (s: Shape | undefined) => (s ? (s.required ? 'required' : 'optional') : '');

/** What differs between two sets of fields, as drift rows of one place in one operation. */
function compareFields(
  operation: string,
  where: string,
  served: Map<string, Shape>,
  other: Map<string, Shape>,
): Drift[] {
  const rows: Drift[] = [];
  const row = (field: string, change: DriftChange, a: string, b: string) =>
    rows.push({ operation, where, field, change, served: a, other: b });
  const names = [...new Set([...served.keys(), ...other.keys()])].sort();
  for (const name of names) {
    const a = served.get(name);
    const b = other.get(name);
    // Under a field only one has, its own fields say nothing new.
    const parent = name.replace(/(\.[^.]*|\[\])$/, '');
    if (parent !== name && (!served.has(parent) || !other.has(parent)) && (served.has(parent) || other.has(parent)))
      continue;
    if (!a || !b) {
      row(
        name,
        a ? 'removed' : 'added',
        a ? `${typeText(a)} ${requiredText(a)}` : '',
        b ? `${typeText(b)} ${requiredText(b)}` : '',
      );
      continue;
    }
    const ta = typeText(a);
    const tb = typeText(b);
    if (ta !== 'any' && tb !== 'any' && ta !== tb) row(name, 'type', ta, tb);
    if (enumText(a) !== enumText(b) && (a.enum || b.enum))
      row(name, 'enum', enumText(a) || 'any', enumText(b) || 'any');
    if (a.required !== b.required) row(name, 'required', requiredText(a), requiredText(b));
  }
  return rows;
}

/** `/customers/{customerId}` and `/customers/{id}` are one operation: parameters are compared by place. */
const pathKey = (path: string) => path.replace(/\{[^}]+\}/g, '{}');

interface Operation {
  method: string;
  path: string;
  node: Node;
  shared: unknown[];
}

function operationsOf(doc: Node): Map<string, Operation> {
  const out = new Map<string, Operation>();
  const paths = isNode(doc.paths) ? doc.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = deref(doc, rawItem);
    if (!isNode(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of METHODS) {
      const node = item[method];
      if (isNode(node))
        out.set(`${method.toUpperCase()} ${pathKey(path)}`, { method: method.toUpperCase(), path, node, shared });
    }
  }
  return out;
}

/** The parameters of an operation, `query limit` → its shape (path parameters by position, not by name). */
function parametersOf(doc: Node, op: Operation): Map<string, Shape> {
  const out = new Map<string, Shape>();
  const own = Array.isArray(op.node.parameters) ? op.node.parameters : [];
  const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  for (const raw of [...op.shared, ...own]) {
    const parameter = deref(doc, raw);
    if (!isNode(parameter) || typeof parameter.name !== 'string' || typeof parameter.in !== 'string') continue;
    const index = names.indexOf(parameter.name);
    // Header names are compared without case (Idempotency-Key is idempotency-key), path parameters by position.
    const name = parameter.in === 'header' ? parameter.name.toLowerCase() : parameter.name;
    const key = parameter.in === 'path' && index >= 0 ? `path #${index + 1}` : `${parameter.in} ${name}`;
    const schema = isNode(deref(doc, parameter.schema)) ? (deref(doc, parameter.schema) as Node) : {};
    const values = Array.isArray(schema.enum) ? schema.enum.map(String).sort() : undefined;
    out.set(key, { types: typesOf(schema), enum: values, required: parameter.required === true });
  }
  return out;
}

/** The JSON schema of a request body or response: its application/json media, else its first one. */
function bodySchema(doc: Node, holder: unknown): unknown {
  const node = deref(doc, holder);
  if (!isNode(node) || !isNode(node.content)) return undefined;
  const content = node.content;
  const media = Object.keys(content).find((m) => m.includes('json')) ?? Object.keys(content)[0];
  const entry = media === undefined ? undefined : content[media];
  return isNode(entry) ? entry.schema : undefined;
}

function compareOperation(served: Node, other: Node, a: Operation, b: Operation): Drift[] {
  const operation = `${a.method} ${a.path}`;
  const rows = compareFields(operation, 'parameter', parametersOf(served, a), parametersOf(other, b));
  const requestA = bodySchema(served, a.node.requestBody);
  const requestB = bodySchema(other, b.node.requestBody);
  if ((requestA === undefined) !== (requestB === undefined)) {
    const change = requestA === undefined ? 'added' : 'removed';
    rows.push({
      operation,
      where: 'request body',
      field: '',
      change,
      served: requestA ? 'a body' : '',
      other: requestB ? 'a body' : '',
    });
  } else if (requestA !== undefined)
    rows.push(...compareFields(operation, 'request body', fieldsOf(served, requestA), fieldsOf(other, requestB)));
  const responsesA = isNode(a.node.responses) ? a.node.responses : {};
  const responsesB = isNode(b.node.responses) ? b.node.responses : {};
  const statuses = [...new Set([...Object.keys(responsesA), ...Object.keys(responsesB)])].sort();
  for (const status of statuses) {
    const inA = status in responsesA;
    const inB = status in responsesB;
    const where = `response ${status}`;
    if (!inA || !inB) {
      rows.push({
        operation,
        where,
        field: '',
        change: inA ? 'removed' : 'added',
        served: inA ? status : '',
        other: inB ? status : '',
      });
      continue;
    }
    // Error bodies share one shape across a document; comparing them per operation repeats the same rows.
    if (Number(status) >= 400) continue;
    const sa = bodySchema(served, responsesA[status]);
    const sb = bodySchema(other, responsesB[status]);
    if (sa !== undefined && sb !== undefined)
      rows.push(...compareFields(operation, where, fieldsOf(served, sa), fieldsOf(other, sb)));
  }
  return rows;
}

/**
 * Every difference between the served document and the other one, operation by operation in the served
 * document's path order, then the operations only the other one has.
 */
export function compareDocuments(served: unknown, other: unknown): Drift[] {
  const a = isNode(served) ? served : {};
  const b = isNode(other) ? other : {};
  const opsA = operationsOf(a);
  const opsB = operationsOf(b);
  const rows: Drift[] = [];
  for (const [key, op] of opsA) {
    const theirs = opsB.get(key);
    const operation = `${op.method} ${op.path}`;
    if (!theirs)
      rows.push({ operation, where: 'operation', field: '', change: 'removed', served: 'present', other: '' });
    else rows.push(...compareOperation(a, b, op, theirs));
  }
  for (const [key, op] of opsB)
    if (!opsA.has(key))
      rows.push({
        operation: `${op.method} ${op.path}`,
        where: 'operation',
        field: '',
        change: 'added',
        served: '',
        other: 'present',
      });
  return rows;
}

/** Whether a value read from a file looks like an OpenAPI 3.x document: the one-line problem when it does not. */
export function notOpenApi3(value: unknown): string | undefined {
  if (!isNode(value)) return 'is not an OpenAPI document (not an object)';
  if (typeof value.openapi !== 'string' || !/^3\.\d+/.test(value.openapi))
    return `is not an OpenAPI 3.x document (its "openapi" field is ${JSON.stringify(value.openapi ?? null)})`;
  if (!isNode(value.paths)) return 'has no paths';
  return undefined;
}
