import type { Kysely } from 'kysely';

/**
 * Incoming payments: why a payment was rejected or failed, as the platform's approval answer said it
 * (a reason, the fields a 422 asked for, or what the approval webhook got back). JSON, nullable.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transactions').addColumn('failure_details', 'text').execute();
}
