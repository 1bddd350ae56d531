import type { Kysely } from 'kysely';

/**
 * Facts about the installation itself, one row per name. The first is the check value of the server key
 * (SECRET_KEY): a process started with another key refuses to start instead of answering 401 to every
 * valid credential.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('server_settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}
