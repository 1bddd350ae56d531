// How the dashboard writes amounts and times: amounts in the currency's own decimals with its code, times
// in UTC with a relative hint. Pure functions, handed to every template as `it.f`.
import { CURRENCIES } from '../domain/currencies.ts';
import { COUNT_LIMIT } from '../domain/paging.ts';

/** `1234567` USD → `12,345.67 USD`; an unknown currency shows the smallest unit as it is. */
export function money(amount: number | bigint | string | null | undefined, code: string | null | undefined): string {
  if (amount === null || amount === undefined || code === null || code === undefined) return '—';
  let units: bigint;
  try {
    units = BigInt(amount);
  } catch {
    return `${String(amount)} ${code}`;
  }
  const decimals = CURRENCIES.get(code)?.decimals ?? 0;
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const fraction = decimals > 0 ? `.${digits.slice(digits.length - decimals)}` : '';
  return `${negative ? '−' : ''}${whole}${fraction} ${code}`;
}

/** An amount object as the API shows it ({amount, currency: {code}}), or a bare pair. */
export function amountOf(value: unknown): string {
  if (!value || typeof value !== 'object') return '—';
  const v = value as { amount?: number; currency?: { code?: string } | string };
  const code = typeof v.currency === 'string' ? v.currency : v.currency?.code;
  return money(v.amount, code);
}

/** `2026-11-24 23:34:26 UTC`. */
export function utc(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '—';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

const UNITS: Array<[number, string]> = [
  [86_400_000, 'day'],
  [3_600_000, 'hour'],
  [60_000, 'minute'],
  [1000, 'second'],
];

/** `3 minutes ago`, `in 2 hours`, `just now`, relative to `nowMs`. */
export function relative(value: string | number | null | undefined, nowMs: number): string {
  if (value === null || value === undefined || value === '') return '';
  const at = new Date(value).getTime();
  if (Number.isNaN(at)) return '';
  const diff = at - nowMs;
  const size = Math.abs(diff);
  if (size < 5000) return 'just now';
  const [unit, name] = UNITS.find(([ms]) => size >= ms) ?? [1000, 'second'];
  const n = Math.floor(size / unit);
  const label = `${n} ${name}${n === 1 ? '' : 's'}`;
  return diff < 0 ? `${label} ago` : `in ${label}`;
}

/** Pretty JSON for the raw views; bigints as their digits. */
export function json(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2);
}

/** A CSS class per status, so the same state has the same colour on every screen. */
export function tone(status: string | null | undefined): string {
  switch (status) {
    case 'COMPLETED':
    case 'DELIVERED':
    case 'ACTIVE':
    case 'APPROVED':
      return 'ok';
    case 'FAILED':
    case 'REJECTED':
    case 'EXPIRED':
    case 'RESOLVE_ERRORS':
      return 'bad';
    case 'PENDING':
    case 'PROCESSING':
    case 'IN_PROGRESS':
    case 'PENDING_MANUAL_REVIEW':
      return 'wait';
    default:
      return 'muted';
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/** A `<time>` in UTC with its relative hint beside it (HTML, escaped here). */
export function when(value: string | number | null | undefined, nowMs: number): string {
  if (value === null || value === undefined || value === '') return '—';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return escapeHtml(String(value));
  const hint = relative(value, nowMs);
  const iso = date.toISOString();
  return (
    `<time datetime="${escapeHtml(iso)}">${escapeHtml(utc(value))}</time>` +
    (hint ? ` <span class="rel">${escapeHtml(hint)}</span>` : '')
  );
}

/** `4:05` left until `value` (`1:02:03` past an hour), or `expired`: a quote's countdown, as text. */
export function remaining(value: string | number, nowMs: number): string {
  const left = Math.floor((new Date(value).getTime() - nowMs) / 1000);
  if (Number.isNaN(left)) return '';
  if (left <= 0) return 'expired';
  const pad = (n: number) => String(n).padStart(2, '0');
  const [h, m, sec] = [Math.floor(left / 3600), Math.floor((left % 3600) / 60), left % 60];
  return h > 0 ? `${h}:${pad(m)}:${pad(sec)}` : `${m}:${pad(sec)}`;
}

/**
 * A countdown to `value` (HTML, escaped here): the server writes what is left now, and the page's script
 * ticks it every second while the page is open (it works without the script, frozen at load time).
 */
export function countdown(value: string | number | null | undefined, nowMs: number): string {
  if (value === null || value === undefined || value === '') return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  const left = remaining(value, nowMs);
  const label = left === 'expired' ? 'expired' : `${left} left`;
  return `<span class="countdown" data-until="${escapeHtml(date.toISOString())}">${escapeHtml(label)}</span>`;
}

/**
 * An account id as a link to the payments that leave or reach it (HTML, escaped here): the one place
 * that shows what an account did, since an account has no page of its own.
 */
export function account(id: string | null | undefined): string {
  if (!id) return '—';
  const href = `/dashboard/transactions?accountIdentifier=${encodeURIComponent(id)}`;
  const code = `<code class="small">${escapeHtml(id)}</code>`;
  return `<a href="${escapeHtml(href)}" title="Payments of this account">${code}</a>`;
}

/** A count taken up to COUNT_LIMIT + 1 (store/paging.ts countUpTo): past the limit, only that it is more. */
export function count(n: number): string {
  return n > COUNT_LIMIT ? `more than ${COUNT_LIMIT.toLocaleString('en')}` : n.toLocaleString('en');
}

export const format = { money, amountOf, utc, relative, json, tone, when, countdown, count, account };
export type Format = typeof format;
