/** Milliseconds per unit of an age an operator types: 90s, 30m, 2h, 1d. */
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** An age such as `90s`, `30m`, `2h` or `1d` in milliseconds; null for anything else. */
export function parseDuration(text: string): number | null {
  const match = /^(\d{1,9})([smhd])$/.exec(text.trim());
  if (!match) return null;
  return Number(match[1]) * (UNIT_MS[match[2] ?? ''] ?? 0);
}
