// Reading form fields and query strings. Everything a browser sends is text; a field that is missing,
// repeated, too long or not of its kind is a 400 page that names it, never a 500.
import { isCalendarDate } from '../domain/clock.ts';
import { AppError } from '../domain/errors.ts';

export type Fields = Record<string, unknown>;

/** The parsed body or query as a plain record (an absent or odd body reads as no fields). */
export function fieldsOf(value: unknown): Fields {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {};
}

function invalid(field: string, message: string): AppError {
  return new AppError('INVALID_INPUT', message, { field });
}

const MAX_TEXT = 500;

/** A trimmed text field; undefined when absent or blank unless `required`. */
export function text(fields: Fields, field: string, required = false, max = MAX_TEXT): string | undefined {
  const raw = fields[field];
  if (raw === undefined || raw === '') {
    if (required) throw invalid(field, `${field} is required`);
    return undefined;
  }
  if (typeof raw !== 'string') throw invalid(field, `${field} must be given once, as text`);
  const value = raw.trim();
  if (value.length > max) throw invalid(field, `${field} is longer than ${max} characters`);
  if (required && value === '') throw invalid(field, `${field} is required`);
  return value === '' ? undefined : value;
}

export function requiredText(fields: Fields, field: string, max = MAX_TEXT): string {
  return text(fields, field, true, max) as string;
}

/** A whole number within [min, max]. */
export function integer(fields: Fields, field: string, min: number, max: number): number {
  const value = requiredText(fields, field, 20);
  if (!/^-?\d+$/.test(value)) throw invalid(field, `${field} must be a whole number`);
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min || n > max) throw invalid(field, `${field} must be from ${min} to ${max}`);
  return n;
}

/**
 * A decimal amount in major units ("12.50") turned into the smallest unit with the currency's decimals;
 * more decimals than the currency has is refused rather than rounded.
 */
export function minorUnits(fields: Fields, field: string, decimals: number, max: number): number {
  const value = requiredText(fields, field, 30).replace(/,/g, '');
  const m = /^(\d+)(?:\.(\d*))?$/.exec(value);
  if (!m) throw invalid(field, `${field} must be an amount such as 12.50`);
  const fraction = m[2] ?? '';
  if (fraction.length > decimals) throw invalid(field, `${field} has more than ${decimals} decimals`);
  const n = Number(m[1]! + fraction.padEnd(decimals, '0'));
  if (!Number.isSafeInteger(n) || n <= 0 || n > max)
    throw invalid(field, `${field} must be more than 0 and at most the limit`);
  return n;
}

/** One of `options`, or undefined when blank and not required. */
export function choice<T extends string>(
  fields: Fields,
  field: string,
  options: readonly T[],
  required = false,
): T | undefined {
  const value = text(fields, field, required, 100);
  if (value === undefined) return undefined;
  if (!(options as readonly string[]).includes(value))
    throw invalid(field, `${field} must be one of ${options.join(', ')}`);
  return value as T;
}

/** A YYYY-MM-DD date (a date input's value) as the UTC ms of that day's start, or undefined when blank. */
export function day(fields: Fields, field: string): { value: string; startMs: number } | undefined {
  const value = text(fields, field, false, 10);
  if (value === undefined) return undefined;
  if (!isCalendarDate(value)) throw invalid(field, `${field} must be a date written YYYY-MM-DD`);
  return { value, startMs: Date.parse(`${value}T00:00:00Z`) };
}

/** Every checked box of a group (a repeated field arrives as an array). */
export function checked<T extends string>(fields: Fields, field: string, options: readonly T[]): T[] {
  const raw = fields[field];
  const values = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return values.map((v) => {
    if (typeof v !== 'string' || !(options as readonly string[]).includes(v))
      throw invalid(field, `${field} must be among ${options.join(', ')}`);
    return v as T;
  });
}

/** Where to go back to after a form: only a dashboard path of this server, never another site. */
export function backTo(fields: Fields, fallback: string): string {
  const value = fields.back;
  if (typeof value === 'string' && /^\/dashboard(\/[\w\-./:%?=&]*)?$/.test(value) && !value.includes('//'))
    return value;
  return fallback;
}
