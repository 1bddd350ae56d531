/**
 * Every field the public contracts define for a request body is accepted here: for each operation both
 * this service and the contract have, every property path of the contract's request schema exists in
 * the schema this service validates with (its served OpenAPI document). accountInfo is the account-type
 * rule table's, checked by sending requests instead (./client-requests.test.ts).
 */
import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { useServer } from '../helpers/harness.ts';
import { loadContract } from './contract.ts';

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Request properties of the contract that this service's schemas do not declare, each with the reason
 * docs/contract.md gives. JSON bodies are closed, so such a field is refused with a 400 naming it, except
 * where the route has no body schema at all (execute ignores its body, scaFactor included). Matched
 * against `METHOD /path: property`.
 */
const IGNORED: { pattern: RegExp; why: string }[] = [
  { pattern: /: scaFactor$/, why: 'no strong customer authentication region is served' },
  { pattern: /^POST \/quotes: platformFeeOverride/, why: 'no platform fee of its own to override' },
];
const ignored = (finding: string) => IGNORED.some((i) => i.pattern.test(finding));

/** Where the account-type table, not the request schema, decides which fields are taken. */
const RULE_TABLE = /(^|\.)accountInfo$/;

function resolve(doc: Node, node: unknown): Node {
  let n = node;
  for (let i = 0; isNode(n) && typeof n.$ref === 'string' && i < 20; i++) {
    n = (n.$ref as string)
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((at, key) => (isNode(at) ? at[key] : undefined), doc);
  }
  return isNode(n) ? n : {};
}

/** Every property path a schema names (`destination.paymentRail`, `items[]`), through refs and compositions. */
function paths(doc: Node, schema: unknown, prefix = '', seen = new Set<unknown>()): Map<string, boolean> {
  const out = new Map<string, boolean>();
  const node = resolve(doc, schema);
  if (seen.has(node) || RULE_TABLE.test(prefix)) return out;
  seen.add(node);
  for (const key of ['allOf', 'oneOf', 'anyOf'])
    for (const part of (node[key] as unknown[] | undefined) ?? [])
      for (const [p, open] of paths(doc, part, prefix, seen)) out.set(p, open);
  if (node.items) for (const [p, open] of paths(doc, node.items, `${prefix}[]`, seen)) out.set(p, open);
  const open = node.additionalProperties !== undefined && node.additionalProperties !== false;
  if (prefix && (node.properties || open)) out.set(prefix, open || (out.get(prefix) ?? false));
  for (const [name, child] of Object.entries((node.properties as Node | undefined) ?? {})) {
    const path = prefix ? `${prefix}.${name}` : name;
    out.set(path, out.get(path) ?? false);
    for (const [p, o] of paths(doc, child, path, new Set(seen))) out.set(p, o || (out.get(p) ?? false));
  }
  return out;
}

describe('request fields of the public contract', () => {
  const server = useServer();

  it('every request property the contract defines is one this service takes', async () => {
    const contract = loadContract();
    const ours = (await (await fetch(`${server.baseUrl}/2025-10-13/openapi.json`)).json()) as Node;
    const missing: string[] = [];
    for (const [path, item] of Object.entries(ours.paths as Record<string, Node>)) {
      for (const [method, op] of Object.entries(item)) {
        const theirs = contract.document.paths as Record<string, Node>;
        const template = path.replace(/\{[^}]+\}/g, '{}');
        const match = Object.entries(theirs).find(([p]) => p.replace(/\{[^}]+\}/g, '{}') === template);
        const contractBody = (match?.[1]?.[method] as Node | undefined)?.requestBody as Node | undefined;
        const contractSchema = ((contractBody?.content as Node | undefined)?.['application/json'] as Node | undefined)
          ?.schema;
        if (!contractSchema) continue;
        const ourSchema = (
          (((op as Node).requestBody as Node | undefined)?.content as Node | undefined)?.['application/json'] as
            | Node
            | undefined
        )?.schema;
        const accepted = paths(ours, ourSchema ?? {});
        const acceptedUnder = (p: string) =>
          accepted.has(p) || [...accepted].some(([q, open]) => open && p.startsWith(`${q}.`));
        for (const p of paths(contract.document, contractSchema).keys()) {
          const finding = `${method.toUpperCase()} ${path}: ${p}`;
          if (!acceptedUnder(p) && !ignored(finding)) missing.push(finding);
        }
      }
    }
    assert.deepEqual(
      missing,
      [],
      `request fields the contract defines and this service refuses:\n${missing.join('\n')}`,
    );
  });
});
