// A payment's timeline on its page: its creation, each webhook event, and what its connector did (where it
// was routed, the submission, every rail event received for it, the attention list), in time order.
import { MANUAL_CONNECTOR } from '../domain/connector-routes.ts';
import type { RailHistory } from '../services/connectors/views.ts';
import { tone, utc } from './format.ts';

export interface TimelineEntry {
  /** Where it goes in the list (ms). */
  atMs: number;
  /** The time shown, when the entry has one of its own. */
  shownAt?: number;
  badge: string;
  tone: string;
  /** What happened, in words (plain text). */
  text?: string;
  /** A link that says more (the connectors page). */
  href?: string;
}

const RESULT: Record<string, string> = {
  APPLIED: 'applied',
  NO_CHANGE: 'no change (a duplicate, late or out of order)',
  UNKNOWN_PAYMENT: 'not matched to this payment',
};

/** How a rail event came: the answer to a submit or a poll, or a callback the adapter sent. */
const via = (messageId: string) =>
  messageId.startsWith('submit:')
    ? 'answered the submit'
    : messageId.startsWith('poll:')
      ? 'answered a poll'
      : 'called back';

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

function railEntries(rail: RailHistory, processingAtMs: number, stillProcessing: boolean): TimelineEntry[] {
  if (rail.connector === MANUAL_CONNECTOR && !rail.rail)
    return [
      {
        atMs: processingAtMs,
        badge: 'ROUTED',
        tone: 'muted',
        text: 'to manual: it waits in PROCESSING until an operator settles or fails it',
      },
    ];
  const row = rail.rail;
  if (!row) return [];
  const routedAt = Number(row.created_at);
  const calls = Number(row.calls);
  const submitting = row.state === 'SUBMITTING';
  const submitted = [
    submitting ? `to ${row.connector}: no answer yet` : `to ${row.connector}: taken`,
    row.rail_reference ? `rail reference ${row.rail_reference}` : undefined,
    calls > 0 ? plural(calls, submitting ? 'unanswered call' : 'poll') : undefined,
    row.last_error ? `last error: ${row.last_error}` : undefined,
  ];
  const entries: TimelineEntry[] = [
    { atMs: routedAt, shownAt: routedAt, badge: 'ROUTED', tone: 'muted', text: `to ${row.connector}` },
    {
      atMs: routedAt,
      badge: submitting ? 'SUBMITTING' : 'SUBMITTED',
      tone: submitting ? 'wait' : 'muted',
      text: submitted.filter(Boolean).join(' · '),
    },
  ];
  for (const e of rail.events) {
    const receivedAt = Number(e.received_at);
    const words = [
      `${e.connector} ${via(e.message_id)}`,
      e.failure_reason ?? undefined,
      RESULT[e.result] ?? e.result,
      `occurred ${utc(Number(e.occurred_at))}`,
    ];
    entries.push({
      atMs: receivedAt,
      shownAt: receivedAt,
      badge: `RAIL ${e.status}`,
      tone: e.result === 'APPLIED' ? tone(e.status) : 'muted',
      text: words.filter(Boolean).join(' · '),
    });
  }
  if (row.attention && row.attention_since !== null) {
    const since = Number(row.attention_since);
    // Once the payment is final (an operator settled or failed it), the entry stays as what happened.
    entries.push({
      atMs: since,
      shownAt: since,
      badge: 'ATTENTION',
      tone: stillProcessing ? 'bad' : 'muted',
      text: `${stillProcessing ? 'waits' : 'waited'} for an answer or a person: ${row.attention}`,
      ...(stillProcessing ? { href: '/dashboard/connectors' } : {}),
    });
  }
  return entries;
}

/** The timeline's entries, oldest first (ties keep their order: created, the webhook events, the rail's). */
export function timelineOf(
  tx: { createdAt: string; status: string },
  events: readonly { type: string; createdAt: string }[],
  rail: RailHistory,
): TimelineEntry[] {
  const createdAtMs = Date.parse(tx.createdAt);
  const entries: TimelineEntry[] = [{ atMs: createdAtMs, shownAt: createdAtMs, badge: 'CREATED', tone: 'muted' }];
  for (const e of events) {
    const at = Date.parse(e.createdAt);
    entries.push({ atMs: at, shownAt: at, badge: e.type, tone: tone(e.type.split('.').pop()) });
  }
  const processing = events.find((e) => e.type.endsWith('.PROCESSING'));
  entries.push(
    ...railEntries(rail, processing ? Date.parse(processing.createdAt) : createdAtMs, tx.status === 'PROCESSING'),
  );
  return entries
    .map((entry, i) => ({ entry, i }))
    .sort((a, b) => a.entry.atMs - b.entry.atMs || a.i - b.i)
    .map(({ entry }) => entry);
}
