/** Every platform has two environments; every query is scoped to one. */
export type Environment = 'sandbox' | 'production';

export const ENVIRONMENTS = ['sandbox', 'production'] as const satisfies readonly Environment[];
