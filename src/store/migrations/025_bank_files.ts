import type { Kysely } from 'kysely';

/**
 * The ISO 20022 bank connector's files (issue 37):
 * - bank_files: every file that left for the bank (OUT: pain.001, RELEASED or REFUSED by its schema) or came
 *   back from it (IN: pain.002, camt.054, camt.053; APPLIED or REFUSED). Unique per connector, direction and
 *   message id (a bank refuses a MsgId it saw before), and per connector, direction and content hash (an
 *   inbound file is applied once, however often it is dropped in the inbox);
 * - rail_payments.bank_file_id: the pain.001 a payment left in;
 * - rail_events gain the file an event came in, what the bank booked (amount, currency) and the event's
 *   kind (a status report or a booked entry), for reconciliation;
 * - bank_credits: every credit entry a notification carried, matched to a quote or not (never lost).
 * CREATE TABLE, ALTER TABLE and CREATE INDEX: the same statements on SQLite and PostgreSQL.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('bank_files')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('connector', 'text', (c) => c.notNull())
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('msg_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('currency', 'text')
    .addColumn('nb_of_txs', 'bigint', (c) => c.notNull())
    .addColumn('ctrl_sum', 'bigint')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('applied_at', 'bigint')
    .addUniqueConstraint('bank_files_msg_id', ['connector', 'direction', 'msg_id'])
    .addUniqueConstraint('bank_files_sha256', ['connector', 'direction', 'sha256'])
    .execute();
  await db.schema.createIndex('bank_files_created').on('bank_files').columns(['connector', 'created_at']).execute();
  await db.schema.alterTable('rail_payments').addColumn('bank_file_id', 'text').execute();
  await db.schema.createIndex('rail_payments_bank_file').on('rail_payments').columns(['bank_file_id']).execute();
  // The export's claim: a connector's payments waiting for a file.
  await db.schema
    .createIndex('rail_payments_batching')
    .on('rail_payments')
    .columns(['connector', 'state', 'transaction_id'])
    .execute();
  await db.schema.alterTable('rail_events').addColumn('bank_file_id', 'text').execute();
  await db.schema.alterTable('rail_events').addColumn('amount', 'bigint').execute();
  await db.schema.alterTable('rail_events').addColumn('currency', 'text').execute();
  await db.schema.alterTable('rail_events').addColumn('kind', 'text').execute();
  await db.schema.createIndex('rail_events_bank_file').on('rail_events').columns(['bank_file_id']).execute();
  await db.schema
    .createTable('bank_credits')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('connector', 'text', (c) => c.notNull())
    .addColumn('bank_file_id', 'text', (c) => c.notNull())
    .addColumn('entry_key', 'text', (c) => c.notNull())
    .addColumn('reference', 'text')
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('booked_at', 'bigint', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('quote_id', 'text')
    .addColumn('transaction_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('bank_credits_entry', ['connector', 'entry_key'])
    .execute();
  await db.schema.createIndex('bank_credits_result').on('bank_credits').columns(['result', 'created_at']).execute();
}
