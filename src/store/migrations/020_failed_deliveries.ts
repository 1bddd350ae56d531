import { sql, type Kysely } from 'kysely';

/**
 * Webhook deliveries that gave up, found without reading every event of a platform. The dashboard counts
 * them on its home page and lists them on its webhooks page; with no index of their own both read the
 * platform's whole event history (three events a payment) on every view. Partial, so the events delivered
 * (all but a few) cost nothing more to write. A query reaches it only by naming the state as a literal
 * (`DELIVERY_FAILED` in webhooks/event-log.ts): neither planner matches a bound parameter to an index's
 * WHERE. The same statement on SQLite and PostgreSQL.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('events_delivery_failed')
    .on('events')
    .columns(['platform_id', 'environment', 'created_at', 'id'])
    .where(sql.ref('delivery_state'), '=', sql.lit('FAILED'))
    .execute();
}
