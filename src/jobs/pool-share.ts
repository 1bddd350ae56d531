/**
 * The worker's share of the database pool. Each group of database-only jobs is a transaction, on
 * PostgreSQL a pooled connection: all the groups of a pass at once took the whole pool, and the API's
 * requests waited behind them (up to the connection timeout and a 503) whenever a backlog fell due at once.
 * The groups run at most `atOnce` at a time instead, a bound below the pool's size (the app gives half).
 */

/** Runs `run` on every item, at most `atOnce` at a time (all at once if unset): each runner takes the next. */
export async function runAtMost<T>(
  items: readonly T[],
  atOnce: number | undefined,
  run: (item: T) => Promise<unknown>,
): Promise<void> {
  const runners = Math.min(items.length, atOnce ?? items.length);
  const next = items.values();
  const runner = async () => {
    for (let item = next.next(); !item.done; item = next.next()) await run(item.value);
  };
  await Promise.all(Array.from({ length: runners }, runner));
}
