import type { SelectQueryBuilder } from 'kysely';
import { invalidInput } from '../domain/errors.ts';
import { COUNT_LIMIT, decodeCursor, encodeCursor, type Page, type PageRequest } from '../domain/paging.ts';
import type { Db } from './schema.ts';

/** Where a page starts: the last row of the page before it. */
function positionOf(cursor: string): { t: bigint; id: string } {
  const { t, id } = decodeCursor(cursor, ['t', 'id']);
  if (!/^\d{1,16}$/.test(t)) throw invalidInput('cursor', 'cursor is not one this server issued (t)', 'cursor');
  return { t: BigInt(t), id };
}

/**
 * Keyset pagination over (created_at, id): a page costs one index range scan wherever it starts, and
 * rows sharing a timestamp keep a stable order through the id tie-breaker. `base` must already carry the
 * caller's tenant scope and filters; totalCount counts the same filters without the page window, up to
 * COUNT_LIMIT: counting every match would make each page cost as much as the whole list (a million rows
 * take tens of milliseconds to count, a page a fraction of one), so past the limit totalCount is left out
 * (the contract makes it optional) and a page costs the same however long the list grows.
 */
export async function keysetPage<Row extends { created_at: bigint; id: string }>(
  // Kysely cannot express "a query over some table with created_at and id" generically; the rows are typed by the
  // caller.
  base: SelectQueryBuilder<any, any, any>,
  table: string,
  req: PageRequest,
  options: PageOptions = {},
): Promise<Page<Row>> {
  const key = options.key ?? keyOf(table);
  const page = inPageOrder(window(base, table, req, key), req, key);
  // Counted in page order too, so that the count's plan is the page's, bounded by its limit. The service
  // prepares its statements, and after five runs PostgreSQL may plan one for any values (a generic plan): left
  // to choose, the count of a quote status hashed every quote of the platform (72 ms at 200,000) rather than
  // walk the index of the few that have it.
  const ordered = (options.counted ?? base).orderBy(key.createdAt, req.order).orderBy(key.id, req.order);
  const [rows, count] = await Promise.all([
    (options.rows ? options.rows(page) : page).execute() as Promise<Row[]>,
    countUpTo(ordered, COUNT_LIMIT + 1),
  ]);
  return pageOf(rows, count, req);
}

/** The columns a page is ordered and cut by. */
export interface PageKey {
  createdAt: string;
  id: string;
}

export interface PageOptions {
  /**
   * The key, when a filter's index orders the rows by another table's columns of equal values (a quote's
   * payment's created_at and quote_id); `table`'s created_at and id otherwise.
   */
  key?: PageKey;
  /** What the page's rows read besides `table`'s columns, left out of the count. */
  rows?: (page: SelectQueryBuilder<any, any, any>) => SelectQueryBuilder<any, any, any>;
  /** What the count reads instead of `base`, when fewer tables match the same rows (ordered by the same key). */
  counted?: SelectQueryBuilder<any, any, any>;
}

const keyOf = (table: string): PageKey => ({ createdAt: `${table}.created_at`, id: `${table}.id` });

/**
 * The same over the union of `parts`, queries of `table` that match no row in common: each part's page is read
 * from its own index range, and the page is the first of their rows. Read as one range of the union, a part
 * whose rows come out of its index in page order would still be read whole and sorted with the others.
 */
export async function keysetPageOfUnion<Row extends { created_at: bigint; id: string }>(
  db: Db,
  parts: SelectQueryBuilder<any, any, any>[],
  table: string,
  req: PageRequest,
): Promise<Page<Row>> {
  const union = (each: (part: SelectQueryBuilder<any, any, any>) => SelectQueryBuilder<any, any, any>) =>
    parts
      .map((part, i) => db.selectFrom(each(part).as(`part_${i}`)).selectAll())
      .reduce((all, part) => all.unionAll(part));
  const key = keyOf(table);
  const pages = union((part) => inPageOrder(window(part, table, req, key), req, key));
  const [rows, count] = await Promise.all([
    inPageOrder(db.selectFrom(pages.as(table)).selectAll(), req, key).execute() as Promise<Row[]>,
    countUpTo(db.selectFrom(union((part) => part.selectAll(table)).as(table)), COUNT_LIMIT + 1),
  ]);
  return pageOf(rows, count, req);
}

/** `base`'s rows from the cursor on. */
function window(base: SelectQueryBuilder<any, any, any>, table: string, req: PageRequest, key: PageKey) {
  const query = base.selectAll(table);
  if (!req.cursor) return query;
  const cmp = req.order === 'asc' ? '>' : '<';
  const pos = positionOf(req.cursor);
  const t = pos.t;
  // The leading `created_at <= t` (>= ascending) bounds the index range the scan starts from; the OR alone
  // is not a range either engine seeks to, and a page deep in a long list would walk every row before it.
  return query
    .where(key.createdAt, `${cmp}=`, t)
    .where((eb: any) => eb.or([eb(key.createdAt, cmp, t), eb(key.id, cmp, pos.id)]));
}

/** A page's worth of `query`'s rows in page order, and one more to tell whether another page follows. */
function inPageOrder(query: SelectQueryBuilder<any, any, any>, req: PageRequest, key: PageKey) {
  return query
    .orderBy(key.createdAt, req.order)
    .orderBy(key.id, req.order)
    .limit(req.limit + 1);
}

function pageOf<Row extends { created_at: bigint; id: string }>(rows: Row[], count: number, req: PageRequest) {
  const hasMore = rows.length > req.limit;
  const data = hasMore ? rows.slice(0, req.limit) : rows;
  const last = data[data.length - 1];
  const page: Page<Row> = { data, hasMore };
  if (count <= COUNT_LIMIT) page.totalCount = count;
  if (hasMore && last) page.nextCursor = encodeCursor({ t: last.created_at.toString(), id: last.id });
  return page;
}

/**
 * How many rows `base` matches, counting no further than `limit`. The count is taken by the database, one row
 * back instead of `limit` rows (on a list of 1,000 customers the rows cost more than the page itself). The
 * outer query over `base` only gives the uncorrelated count a statement to ride in: it stops at its first
 * match, and no match means no row, a count of 0.
 */
export async function countUpTo(base: SelectQueryBuilder<any, any, any>, limit: number): Promise<number> {
  const row = (await base
    .select((eb: any) =>
      eb
        .selectFrom(
          base
            .select((inner: any) => inner.lit(1).as('one'))
            .limit(limit)
            .as('matches'),
        )
        .select((counted: any) => counted.fn.countAll().as('n'))
        .as('n'),
    )
    .limit(1)
    .executeTakeFirst()) as { n: number | bigint | string } | undefined;
  return row ? Number(row.n) : 0;
}

export function mapPage<A, B>(page: Page<A>, fn: (a: A) => B): Page<B> {
  return { ...page, data: page.data.map(fn) };
}
