import type { Kysely } from 'kysely';

/**
 * What the core keeps of a payment handed to a rail connector (rails/connector.ts), apart from the
 * transaction row so that the money path's hot table is untouched:
 * - rail_payments: one row per payment routed to a connector that calls out (the generic HTTP one): the
 *   rail's reference once it gave one, the calls made, and why the payment waits on the attention list
 *   (an unknown outcome: never failed by guesswork);
 * - rail_events: every event a connector reported, applied or not (a duplicate, a late one, one naming a
 *   payment this service does not know), unique per connector and message id so that a replay changes
 *   nothing.
 * CREATE TABLE and CREATE INDEX: the same statements on SQLite and PostgreSQL.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('rail_payments')
    .addColumn('transaction_id', 'text', (c) => c.primaryKey().references('transactions.id'))
    .addColumn('platform_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('connector', 'text', (c) => c.notNull())
    .addColumn('rail_reference', 'text')
    // SUBMITTING until the rail answered the instruction, then PENDING until an event settles it, then DONE.
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('calls', 'bigint', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('attention', 'text')
    .addColumn('attention_since', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('rail_payments_reference')
    .on('rail_payments')
    .columns(['connector', 'rail_reference'])
    .execute();
  await db.schema.createIndex('rail_payments_attention').on('rail_payments').columns(['attention_since']).execute();
  await db.schema
    .createTable('rail_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('connector', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('transaction_id', 'text')
    .addColumn('rail_reference', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('failure_reason', 'text')
    .addColumn('occurred_at', 'bigint', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    // APPLIED, NO_CHANGE (duplicate, late or out of order) or UNKNOWN_PAYMENT.
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addUniqueConstraint('rail_events_message', ['connector', 'message_id'])
    .execute();
  await db.schema.createIndex('rail_events_received').on('rail_events').columns(['received_at']).execute();
}
