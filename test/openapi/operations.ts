// The operations of an OpenAPI document, for the tests that walk the one the service serves.
type Node = Record<string, any>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function operationsOf(doc: Node): Array<{ name: string; path: string; method: string; op: Node }> {
  return Object.entries<Node>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({
      name: `${method.toUpperCase()} ${path}`,
      path,
      method,
      op: item[method],
    })),
  );
}
