import type { Kysely } from 'kysely';

/**
 * Two columns of the sandbox request log. `query`: the query string, kept with the bodies
 * (SANDBOX_REQUEST_LOG_BODIES), so that a GET can be replayed (`payouts logs export --fixture`).
 * `contract_mismatches`: what contract check mode (SANDBOX_CONTRACT_CHECK) found wrong with the answer, or
 * with a webhook sent, as a JSON list; null when nothing was.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sandbox_requests').addColumn('query', 'text').execute();
  await db.schema.alterTable('sandbox_requests').addColumn('contract_mismatches', 'text').execute();
}
