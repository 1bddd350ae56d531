import type { SelectQueryBuilder } from 'kysely';
import { invalidInput } from '../domain/errors.ts';
import { COUNT_LIMIT, type Page, type PageRequest } from '../domain/paging.ts';

interface Position {
  t: string;
  id: string;
}

function encodeCursor(createdAt: bigint, id: string): string {
  return Buffer.from(JSON.stringify({ t: createdAt.toString(), id } satisfies Position)).toString('base64url');
}

function decodeCursor(cursor: string): Position {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<Position>;
    if (typeof value.t === 'string' && /^\d{1,16}$/.test(value.t) && typeof value.id === 'string')
      return { t: value.t, id: value.id };
  } catch {
    // fall through to the 400 below
  }
  throw invalidInput('cursor', 'cursor is not one this server issued', 'cursor');
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
): Promise<Page<Row>> {
  const created = `${table}.created_at`;
  const id = `${table}.id`;
  const cmp = req.order === 'asc' ? '>' : '<';
  let query = base.selectAll(table);
  if (req.cursor) {
    const pos = decodeCursor(req.cursor);
    const t = BigInt(pos.t);
    // The leading `created_at <= t` (>= ascending) bounds the index range the scan starts from; the OR alone
    // is not a range either engine seeks to, and a page deep in a long list would walk every row before it.
    query = query.where(created, `${cmp}=`, t).where((eb: any) => eb.or([eb(created, cmp, t), eb(id, cmp, pos.id)]));
  }
  const [rows, count] = await Promise.all([
    query
      .orderBy(created, req.order)
      .orderBy(id, req.order)
      .limit(req.limit + 1)
      .execute() as Promise<Row[]>,
    countUpTo(base, COUNT_LIMIT + 1),
  ]);
  const hasMore = rows.length > req.limit;
  const data = hasMore ? rows.slice(0, req.limit) : rows;
  const last = data[data.length - 1];
  const page: Page<Row> = { data, hasMore };
  if (count <= COUNT_LIMIT) page.totalCount = count;
  if (hasMore && last) page.nextCursor = encodeCursor(last.created_at, last.id);
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
