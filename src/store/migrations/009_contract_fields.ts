import type { Kysely } from 'kysely';

/**
 * Fields the newest public contract and the official clients send, stored so they can be echoed:
 * an external account's ownershipType; a payment's remittance information and the time its receipt
 * reached the customer (POST /transactions/{id}/confirm).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('external_accounts').addColumn('ownership_type', 'text').execute();
  await db.schema.alterTable('transactions').addColumn('remittance_information', 'text').execute();
  await db.schema.alterTable('transactions').addColumn('receipt_delivery_confirmed_at', 'bigint').execute();
}
