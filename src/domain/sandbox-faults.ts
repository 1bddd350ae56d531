// Sandbox fault rules, the pure part: which requests a rule's route pattern matches, and which answers a
// rule may give (an error body the API could really answer: a catalogued code with its own status).
import { ERROR_CATALOGUE, type ErrorCode, invalidInput } from './errors.ts';

export const FAULT_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type FaultMethod = (typeof FAULT_METHODS)[number];

/** The sandbox's own diagnostic routes: never faulted (the rules could not be removed) and never logged. */
export const DIAGNOSTIC_PATHS = ['/sandbox/faults', '/sandbox/requests'] as const;

export function isDiagnosticPath(path: string): boolean {
  return DIAGNOSTIC_PATHS.some((p) => path === p || path.startsWith(`${p}/`));
}

/** The statuses a rule may answer: every error status the API itself answers. */
export const FAULT_STATUSES = [...new Set(Object.values(ERROR_CATALOGUE))]
  .filter((s) => s >= 400)
  .sort((a, b) => a - b);

/**
 * A route pattern: a path under the API's base, where `*` stands for one path segment (or the rest of
 * one) and `**` for any number of segments. `/customers/*` matches `/customers/Customer:1` but not
 * `/customers/Customer:1/documents`; `/customers/**` matches both.
 */
export function patternMatcher(pattern: string): RegExp {
  const body = pattern
    .split(/(\*\*|\*)/)
    .map((part) => (part === '**' ? '.*' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}/?$`);
}

/** Refuses a pattern no request could match, or one that would reach the diagnostic routes. */
export function checkRoutePattern(pattern: string): void {
  if (!pattern.startsWith('/')) throw invalidInput('route', 'route must start with / (a path under the API base)');
  if (/\/2025-10-13(\/|$)/.test(pattern)) {
    throw invalidInput('route', 'route is a path under the API base: leave out /2025-10-13');
  }
  if (/[?#]/.test(pattern)) throw invalidInput('route', 'route is a path: no query string or fragment');
  // `/**` still covers every other route; only a pattern that names a diagnostic route itself is refused.
  const literal = pattern.replace(/\*.*$/, '').replace(/\/+$/, '');
  if (isDiagnosticPath(literal)) {
    throw invalidInput('route', `${DIAGNOSTIC_PATHS.join(' and ')} are never faulted: name another route`);
  }
}

/**
 * The code a rule answers with: the one it names, which the catalogue must list for its status, or the
 * status's generic code. Raises INVALID_INPUT naming `answer.status` or `answer.code`.
 */
export function faultAnswerCode(status: number, code: string | undefined): ErrorCode {
  const codes = (Object.entries(ERROR_CATALOGUE) as Array<[ErrorCode, number]>)
    .filter(([, s]) => s === status)
    .map(([c]) => c);
  const first = codes[0];
  if (first === undefined) {
    throw invalidInput(
      'answer.status',
      `answer.status ${status} is not one the API answers: use one of ${FAULT_STATUSES.join(', ')}`,
    );
  }
  if (code === undefined) return first;
  const named = codes.find((c) => c === code);
  if (!named) {
    throw invalidInput(
      'answer.code',
      `answer.code ${code} is not a code for ${status}: use one of ${codes.join(', ')}`,
    );
  }
  return named;
}
