import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('transactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('platform_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('flow', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('destination', 'text', (c) => c.notNull())
    .addColumn('source_account_id', 'text')
    .addColumn('destination_account_id', 'text')
    .addColumn('funding', 'text')
    .addColumn('customer_id', 'text')
    .addColumn('platform_customer_id', 'text')
    .addColumn('sender_uma_address', 'text')
    .addColumn('receiver_uma_address', 'text')
    .addColumn('sent_amount', 'bigint', (c) => c.notNull())
    .addColumn('sent_currency', 'text', (c) => c.notNull())
    .addColumn('received_amount', 'bigint', (c) => c.notNull())
    .addColumn('received_currency', 'text', (c) => c.notNull())
    .addColumn('fees', 'bigint', (c) => c.notNull())
    .addColumn('exchange_rate', 'text')
    .addColumn('rate_details', 'text')
    .addColumn('quote_id', 'text')
    .addColumn('description', 'text')
    .addColumn('reference', 'text')
    .addColumn('payment_instructions', 'text')
    .addColumn('counterparty_information', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('failure_reason', 'text')
    .addColumn('refund', 'text')
    .addColumn('settled_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('transactions_scope_page')
    .on('transactions')
    .columns(['platform_id', 'environment', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('transactions_customer')
    .on('transactions')
    .columns(['platform_id', 'environment', 'customer_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('transactions_reference')
    .on('transactions')
    .columns(['platform_id', 'environment', 'reference'])
    .execute();

  await db.schema
    .createTable('quotes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('platform_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('destination', 'text', (c) => c.notNull())
    .addColumn('sending_account_id', 'text')
    .addColumn('receiving_account_id', 'text')
    .addColumn('customer_id', 'text')
    .addColumn('sending_uma_address', 'text')
    .addColumn('receiving_uma_address', 'text')
    .addColumn('sending_currency', 'text', (c) => c.notNull())
    .addColumn('receiving_currency', 'text', (c) => c.notNull())
    .addColumn('total_sending_amount', 'bigint', (c) => c.notNull())
    .addColumn('total_receiving_amount', 'bigint', (c) => c.notNull())
    .addColumn('fees', 'bigint', (c) => c.notNull())
    .addColumn('exchange_rate', 'text', (c) => c.notNull())
    .addColumn('rate_details', 'text', (c) => c.notNull())
    .addColumn('transaction_id', 'text', (c) => c.notNull())
    .addColumn('payment_instructions', 'text')
    .addColumn('reference', 'text')
    .addColumn('counterparty_information', 'text')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('quotes_scope_page')
    .on('quotes')
    .columns(['platform_id', 'environment', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('quotes_reference')
    .on('quotes')
    .columns(['platform_id', 'environment', 'reference'])
    .execute();

  // Idempotency-Key: the first response is kept and replayed for the same key and body.
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('platform_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('response_status', 'bigint', (c) => c.notNull())
    .addColumn('response_body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['platform_id', 'environment', 'operation', 'key'])
    .execute();
}
