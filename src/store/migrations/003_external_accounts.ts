import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('external_accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.references('customers.id'))
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('PENDING', 'ACTIVE', 'UNDER_REVIEW', 'INACTIVE')`),
    )
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('account_type', 'text', (c) => c.notNull())
    .addColumn('primary_identifier', 'text', (c) => c.notNull())
    .addColumn('account_info', 'text', (c) => c.notNull())
    .addColumn('platform_account_id', 'text')
    .addColumn('default_uma_deposit', 'bigint', (c) =>
      c.notNull().defaultTo(0).check(sql`default_uma_deposit in (0, 1)`),
    )
    .addColumn('beneficiary_verification_status', 'text', (c) => c.notNull())
    .addColumn('beneficiary_verified_name', 'text')
    .addColumn('crypto_network', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // Lists: scope, then creation order (keyset pages); the owner filter narrows customer lists.
  await db.schema
    .createIndex('external_accounts_scope_page')
    .on('external_accounts')
    .columns(['platform_id', 'environment', 'owner', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('external_accounts_scope_created')
    .on('external_accounts')
    .columns(['platform_id', 'environment', 'created_at', 'id'])
    .execute();
  // At most one default UMA deposit account per customer, whatever the code above does.
  await db.schema
    .createIndex('external_accounts_one_default')
    .on('external_accounts')
    .column('customer_id')
    .unique()
    .where(sql.ref('default_uma_deposit'), '=', 1)
    .execute();
  // The same account twice for one owner and currency is a duplicate until the first is deactivated.
  await db.schema
    .createIndex('external_accounts_no_duplicates')
    .on('external_accounts')
    .columns(['platform_id', 'environment', 'owner', 'currency', 'primary_identifier'])
    .unique()
    .where(sql.ref('status'), '<>', 'INACTIVE')
    .execute();
}
