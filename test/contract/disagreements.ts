/**
 * Where this service knowingly answers otherwise than the newest public contract, and why. Each entry
 * matches violations reported by ./contract.ts; docs/contract.md lists the same disagreements for
 * people. The specification binds where it and the contract disagree (DESIGN §2).
 */
export interface Disagreement {
  /** Matches the violation text (`METHOD path status: /field message`). */
  pattern: RegExp;
  why: string;
}

export const DISAGREEMENTS: Disagreement[] = [];

export const explained = (violation: string): boolean => DISAGREEMENTS.some((d) => d.pattern.test(violation));
