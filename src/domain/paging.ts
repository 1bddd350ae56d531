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
