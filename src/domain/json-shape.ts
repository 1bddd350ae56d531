/**
 * Walking a parsed JSON value without recursion. A request body is bounded in bytes, but 8 KB of `[[[[…`
 * nest four thousand levels: anything that recursed once per level (a validator, a hash, a copy) would
 * overflow the stack and answer 500. So the body's shape is bounded when it is parsed, by one loop with an
 * explicit stack, before any other code sees it.
 */

/** The bounds every JSON body is held to: far above any request the API defines, far below harm. */
export const JSON_LIMITS = {
  /** Levels of arrays and objects; the API's deepest body nests under ten. */
  depth: 64,
  /** Members of one object. */
  keys: 1_000,
  /** Items of one array. */
  items: 10_000,
} as const;

export type JsonLimit = keyof typeof JSON_LIMITS;

/** A value reached by the walk, with the way back to the root so a path is built only when one is named. */
interface Visit {
  value: unknown;
  key: string;
  parent: Visit | undefined;
  depth: number;
}

/** The dotted path of a visit (`body` for the root), as error details name a field. */
function pathOf(visit: Visit): string {
  const keys: string[] = [];
  for (let at: Visit | undefined = visit; at?.parent; at = at.parent) keys.push(at.key);
  return keys.length ? keys.reverse().join('.') : 'body';
}

/**
 * Calls `check` on every value of a parsed JSON value, depth-first in document order (so the first value
 * named is the one a client would look at first), with the value's own key; stops at the first answer that
 * is not undefined and returns it with the value's path. Keys are checked on their object, before its
 * members. Never recurses.
 */
export function findInJson<T>(
  root: unknown,
  check: (value: unknown, depth: number) => T | undefined,
): { path: string; found: T } | undefined {
  const stack: Visit[] = [{ value: root, key: '', parent: undefined, depth: 0 }];
  while (stack.length > 0) {
    const visit = stack.pop() as Visit;
    const found = check(visit.value, visit.depth);
    if (found !== undefined) return { path: pathOf(visit), found };
    const { value } = visit;
    if (value === null || typeof value !== 'object') continue;
    const entries: [string, unknown][] = Array.isArray(value)
      ? value.map((v, i) => [String(i), v])
      : Object.entries(value as Record<string, unknown>);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i] as [string, unknown];
      stack.push({ value: child, key, parent: visit, depth: visit.depth + 1 });
    }
  }
  return undefined;
}

export interface JsonBoundBreach {
  limit: JsonLimit;
  bound: number;
  /** The dotted path of the array or object that breaks it (`body` for the whole body). */
  field: string;
  message: string;
}

/** The first place a parsed body breaks JSON_LIMITS, or undefined when it keeps them all. */
export function jsonBoundBreach(body: unknown): JsonBoundBreach | undefined {
  const hit = findInJson(body, (value, depth): JsonLimit | undefined => {
    if (value === null || typeof value !== 'object') return undefined;
    if (depth >= JSON_LIMITS.depth) return 'depth';
    if (Array.isArray(value)) return value.length > JSON_LIMITS.items ? 'items' : undefined;
    return Object.keys(value).length > JSON_LIMITS.keys ? 'keys' : undefined;
  });
  if (!hit) return undefined;
  const limit = hit.found;
  const bound = JSON_LIMITS[limit];
  const field = hit.path;
  const message = {
    depth: `The body nests arrays and objects more than ${bound} levels deep, at ${field}`,
    keys: `${field} has more than ${bound} members`,
    items: `${field} has more than ${bound} items`,
  }[limit];
  return { limit, bound, field, message };
}
