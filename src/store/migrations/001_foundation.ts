import { sql, type Kysely } from 'kysely';

// Migrations take Kysely<any>: they describe the schema as it was at that step, not as it is now.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('platforms')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
    .addColumn('environment', 'text', (c) => c.notNull().check(sql`environment in ('sandbox', 'production')`))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('permissions', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('api_tokens_scope_page')
    .on('api_tokens')
    .columns(['platform_id', 'environment', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('platform_configs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('uma_domain', 'text', (c) => c.notNull())
    .addColumn('webhook_endpoint', 'text')
    .addColumn('supported_currencies', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('platform_configs_scope', ['platform_id', 'environment'])
    .execute();

  await db.schema
    .createTable('customers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('platform_customer_id', 'text', (c) => c.notNull())
    .addColumn('customer_type', 'text', (c) => c.notNull())
    .addColumn('uma_address', 'text', (c) => c.notNull())
    .addColumn('verification_status', 'text', (c) => c.notNull())
    .addColumn('profile', 'text', (c) => c.notNull())
    .addColumn('is_deleted', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('customers_uma_address', ['platform_id', 'environment', 'uma_address'])
    .execute();
  await db.schema
    .createIndex('customers_scope_page')
    .on('customers')
    .columns(['platform_id', 'environment', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('customers_platform_customer_id')
    .on('customers')
    .columns(['platform_id', 'environment', 'platform_customer_id'])
    .execute();

  await db.schema
    .createTable('ledger_accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    // The database itself refuses a negative balance, whatever the code above it does.
    .addColumn('balance', 'bigint', (c) => c.notNull().defaultTo(0).check(sql`balance >= 0`))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('ledger_accounts_owner', ['platform_id', 'environment', 'owner', 'currency', 'kind'])
    .execute();
  await db.schema
    .createIndex('ledger_accounts_scope_page')
    .on('ledger_accounts')
    .columns(['platform_id', 'environment', 'kind', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('journal_entries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('platform_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('reference', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('journal_entries_reference').on('journal_entries').column('reference').execute();

  await db.schema
    .createTable('postings')
    .addColumn('entry_id', 'text', (c) => c.notNull().references('journal_entries.id'))
    .addColumn('line', 'bigint', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().references('ledger_accounts.id'))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull().check(sql`amount <> 0`))
    .addPrimaryKeyConstraint('postings_pk', ['entry_id', 'line'])
    .execute();
  await db.schema.createIndex('postings_account').on('postings').column('account_id').execute();
}
