/**
 * Every table's rows, hashed, for tests that assert a refused request changed nothing: any insert, update
 * or delete shows.
 */
import { createHash } from 'node:crypto';
import type { TestServer } from './harness.ts';

/**
 * Tables a refused request may still change, or that change without any request: the sandbox request log
 * records refusals too, and the worker's upkeep records a ledger check whenever one falls due.
 */
const NOT_REQUEST_STATE = new Set(['sandbox_requests', 'ledger_checks']);

export async function databaseDigest(server: TestServer): Promise<Record<string, string>> {
  const db = server.app.store.db;
  const tables = (await db.introspection.getTables())
    .map((t) => t.name)
    .filter((name) => !NOT_REQUEST_STATE.has(name))
    .sort();
  const digest: Record<string, string> = {};
  for (const table of tables) {
    const rows = await db
      .selectFrom(table as never)
      .selectAll()
      .execute();
    const text = rows
      .map((row) => JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)))
      .sort()
      .join('\n');
    digest[table] = `${rows.length}:${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
  }
  return digest;
}
