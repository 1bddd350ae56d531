import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Claimers know only the code, so it is the key, unique across every platform and environment.
  await db.schema
    .createTable('invitations')
    .addColumn('code', 'text', (c) => c.primaryKey())
    .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('inviter_uma', 'text', (c) => c.notNull())
    .addColumn('inviter_customer_id', 'text', (c) => c.notNull().references('customers.id'))
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('PENDING', 'CLAIMED', 'EXPIRED', 'CANCELLED')`),
    )
    .addColumn('first_name', 'text')
    .addColumn('amount_to_send', 'bigint')
    .addColumn('amount_currency', 'text')
    .addColumn('invitee_uma', 'text')
    .addColumn('claimed_at', 'bigint')
    .addColumn('expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('beneficial_owners')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
    .addColumn('roles', 'text', (c) => c.notNull())
    .addColumn('ownership_percentage', 'bigint', (c) => c.notNull().check(sql`ownership_percentage between 0 and 100`))
    .addColumn('personal_info', 'text', (c) => c.notNull())
    .addColumn('kyc_status', 'text', (c) => c.notNull().check(sql`kyc_status in ('PENDING', 'APPROVED', 'REJECTED')`))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('beneficial_owners_scope_page')
    .on('beneficial_owners')
    .columns(['platform_id', 'environment', 'customer_id', 'created_at', 'id'])
    .execute();

  // A stored file content, shared by every document row with the same bytes; its row is what uploads and
  // deletes lock, so a file is never removed while a new row starts to reference it.
  await db.schema
    .createTable('document_files')
    .addColumn('sha256', 'text', (c) => c.primaryKey())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('documents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('holder_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
    .addColumn('document_type', 'text', (c) => c.notNull())
    .addColumn('country', 'text', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('side', 'text', (c) => c.check(sql`side in ('FRONT', 'BACK')`))
    .addColumn('document_number', 'text')
    .addColumn('sha256', 'text', (c) => c.notNull().references('document_files.sha256'))
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('submitted_verification_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('documents_scope_page')
    .on('documents')
    .columns(['platform_id', 'environment', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('documents_holder').on('documents').columns(['holder_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('documents_customer').on('documents').column('customer_id').execute();
  await db.schema.createIndex('documents_sha256').on('documents').column('sha256').execute();

  await db.schema
    .createTable('verifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('errors', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('verifications_scope_page')
    .on('verifications')
    .columns(['platform_id', 'environment', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('verifications_customer')
    .on('verifications')
    .columns(['customer_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('receiver_lookups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('receiver_type', 'text', (c) =>
      c.notNull().check(sql`receiver_type in ('UMA_ADDRESS', 'EXTERNAL_ACCOUNT')`),
    )
    .addColumn('receiver', 'text', (c) => c.notNull())
    .addColumn('receiver_customer_id', 'text')
    .addColumn('sandbox_behaviour', 'text')
    .addColumn('sender_customer_id', 'text', (c) => c.notNull().references('customers.id'))
    .addColumn('sending_currency', 'text', (c) => c.notNull())
    .addColumn('supported_currencies', 'text', (c) => c.notNull())
    .addColumn('required_payer_data_fields', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}
