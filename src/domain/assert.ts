// Named assertions for invariants: conditions that hold unless the code itself is wrong. A broken one
// stops the use case (and rolls its database transaction back) with the invariant's name, instead of a
// TypeError somewhere after a `!` that promised a value.

/** Thrown only when the code broke its own rule; never for bad input (that is an AppError). */
export class InvariantError extends Error {
  override name = 'InvariantError';
}

export function assert(condition: unknown, invariant: string): asserts condition {
  if (!condition) throw new InvariantError(`invariant broken: ${invariant}`);
}

/** The value, which the invariant says is there. */
export function present<T>(value: T | null | undefined, invariant: string): T {
  assert(value !== null && value !== undefined, invariant);
  return value;
}
