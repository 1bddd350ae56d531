// JSON with its object keys sorted: two requests that differ only in key order are the same request (the
// idempotency hash, the fixtures' derived keys).
/** Key order does not change what a request means, so it does not change its hash either. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
