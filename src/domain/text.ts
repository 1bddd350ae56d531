import { findInJson } from './json-shape.ts';

/**
 * Text every database engine can store. PostgreSQL refuses NUL in a text column (a 500 if it gets that
 * far), and a lone UTF-16 surrogate, which JSON.parse accepts from `"\ud800"`, is silently turned into
 * U+FFFD on the way to either engine. Refusing both at the edge keeps SQLite and PostgreSQL answering the
 * same, and keeps a stored value equal to the one sent.
 */

// NUL; a high surrogate not followed by a low one, or a low one not preceded by a high one.
// oxlint-disable-next-line no-control-regex -- finding NUL is the point
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be stored, or undefined when it can. */
export function unstorableTextReason(text: string): string | undefined {
  const found = UNSTORABLE.exec(text);
  if (!found) return undefined;
  return found[0] === '\u0000' ? 'contains a NUL character (\\u0000)' : 'contains a lone UTF-16 surrogate';
}

export interface UnstorableText {
  /** Dotted path of the value (or of the object holding the offending key), `body` for the whole body. */
  field: string;
  reason: string;
}

/**
 * The first string in a parsed JSON value, query string or path parameter record (keys included) that no
 * engine can store. Depth-first, so the field named is the one a client would look at first; a bad key is
 * named by the object that holds it.
 */
export function findUnstorableText(value: unknown): UnstorableText | undefined {
  const hit = findInJson(value, (v) => {
    if (typeof v === 'string') return unstorableTextReason(v);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
    for (const key of Object.keys(v)) {
      const keyReason = unstorableTextReason(key);
      if (keyReason) return `has a property name that ${keyReason}`;
    }
    return undefined;
  });
  return hit && { field: hit.path, reason: hit.found };
}
