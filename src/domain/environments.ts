/** Every platform has two environments; every query is scoped to one. */
export type Environment = 'sandbox' | 'production';
