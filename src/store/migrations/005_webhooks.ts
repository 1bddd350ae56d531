import { systemClock } from '../../domain/clock.ts';
import { sql, type Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';

export async function up(db: Kysely<any>): Promise<void> {
  // Delivery state of each event. `delivery_run` grows by one on every redelivery, so a retry job left
  // over from an earlier run can see that it is stale and do nothing.
  await db.schema
    .alterTable('events')
    .addColumn('delivery_state', 'text', (c) =>
      c.notNull().defaultTo('PENDING').check(sql`delivery_state in ('PENDING', 'DELIVERED', 'FAILED', 'NO_ENDPOINT')`),
    )
    .execute();
  await db.schema
    .alterTable('events')
    .addColumn('delivery_run', 'bigint', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.alterTable('events').addColumn('delivery_updated_at', 'bigint').execute();
  // The ordering check looks for an earlier PENDING event of the same object in the same scope.
  await db.schema
    .createIndex('events_object_state')
    .on('events')
    .columns(['platform_id', 'environment', 'object_id', 'delivery_state'])
    .execute();

  // Every HTTP attempt, whatever its outcome. Times are scope time (the sandbox clock).
  await db.schema
    .createTable('webhook_attempts')
    .addColumn('event_id', 'text', (c) => c.notNull().references('events.id'))
    .addColumn('run', 'bigint', (c) => c.notNull())
    .addColumn('attempt', 'bigint', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('status_code', 'bigint')
    .addColumn('latency_ms', 'bigint', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('response_body', 'text')
    .addPrimaryKeyConstraint('webhook_attempts_pk', ['event_id', 'run', 'attempt'])
    .execute();

  // One key pair per platform environment and algorithm; the private half sealed with AES-256-GCM.
  await db.schema
    .createTable('webhook_keys')
    .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('algorithm', 'text', (c) => c.notNull().check(sql`algorithm in ('ECDSA_P256', 'ED25519')`))
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('sealed_private_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_keys_pk', ['platform_id', 'environment', 'algorithm'])
    .execute();

  await db.schema
    .alterTable('platform_configs')
    .addColumn('webhook_envelope', 'text', (c) =>
      c.notNull().defaultTo('LEGACY').check(sql`webhook_envelope in ('LEGACY', 'CURRENT')`),
    )
    .execute();
  await db.schema.alterTable('platform_configs').addColumn('webhook_failing_since', 'bigint').execute();

  // Events written before this migration had no delivery job; queue one each, so none is forgotten.
  const now = BigInt(systemClock.nowMs());
  const existing = await db
    .selectFrom('events')
    .select(['id', 'platform_id', 'environment'])
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  for (let i = 0; i < existing.length; i += 500) {
    await db
      .insertInto('jobs')
      .values(
        existing.slice(i, i + 500).map((e) => ({
          id: `Job:${uuidv7()}`,
          platform_id: e.platform_id,
          environment: e.environment,
          kind: 'webhook.deliver',
          payload: JSON.stringify({ eventId: e.id, run: 1, attempt: 1 }),
          status: 'pending',
          run_at: now,
          lease_until: null,
          attempts: 0n,
          last_error: null,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
  }
}
