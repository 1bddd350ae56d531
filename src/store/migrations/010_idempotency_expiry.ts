import type { Kysely } from 'kysely';

/** Idempotency keys are purged by age (forgetExpiredKeys): the purge finds them through this index. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('idempotency_keys_created_at').on('idempotency_keys').column('created_at').execute();
}
