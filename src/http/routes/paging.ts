import type { PageRequest, SortOrder } from '../../domain/paging.ts';

export function pageOf(
  query: { limit?: number | undefined; cursor?: string | undefined },
  order: SortOrder,
  defaultLimit = 20,
): PageRequest {
  return { limit: query.limit ?? defaultLimit, cursor: query.cursor, order };
}

/** Query timestamps were already checked as RFC 3339 by the schema. */
export function ms(value: string | undefined): number | undefined {
  return value === undefined ? undefined : Date.parse(value);
}
