import { invalidInput } from './errors.ts';
import { unstorableTextReason } from './text.ts';

/** A page of a list, as every list endpoint answers it; keyset paging itself lives in store/paging.ts. */
export type SortOrder = 'asc' | 'desc';

export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
  order: SortOrder;
}

/** Lists with more matches than this answer without totalCount (see store/paging.ts keysetPage). */
export const COUNT_LIMIT = 1000;

export interface Page<T> {
  data: T[];
  hasMore: boolean;
  /** Present only while hasMore is true: one official client pages for as long as it is non-null. */
  nextCursor?: string;
  /** How many match the filters, whatever the page; left out when more than COUNT_LIMIT do. */
  totalCount?: number;
}

/** A cursor's position as this server writes it: JSON, base64url-encoded, so a client treats it as opaque. */
export function encodeCursor(position: Record<string, string>): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/**
 * The position a cursor holds, each named field a string. A client can forge any cursor, so what it decodes
 * to is input like a query string and held to the same rules (text no engine can store is refused, as
 * PostgreSQL would refuse a NUL in the id it is compared with). Anything else is a 400 naming `cursor`.
 */
export function decodeCursor<K extends string>(cursor: string, fields: readonly K[]): Record<K, string> {
  const refused = (why: string) => invalidInput('cursor', `cursor is not one this server issued (${why})`, 'cursor');
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refused('not base64url-encoded JSON');
  }
  if (value === null || typeof value !== 'object') throw refused('not an object');
  const position = value as Record<string, unknown>;
  for (const field of fields) {
    const text = position[field];
    if (typeof text !== 'string') throw refused(`${field} is not a string`);
    const reason = unstorableTextReason(text);
    if (reason) throw refused(`${field} ${reason}`);
  }
  return position as Record<K, string>;
}
