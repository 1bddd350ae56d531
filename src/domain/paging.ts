/** A page of a list, as every list endpoint answers it; keyset paging itself lives in store/paging.ts. */
export type SortOrder = 'asc' | 'desc';

export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
  order: SortOrder;
}

export interface Page<T> {
  data: T[];
  hasMore: boolean;
  /** Present only while hasMore is true: one official client pages for as long as it is non-null. */
  nextCursor?: string;
  totalCount: number;
}
