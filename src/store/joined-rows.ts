// Two tables' rows read in one statement (a round trip fewer on PostgreSQL), when both have columns of the
// same names: one table's columns are selected under a prefix and split off again from the row that comes
// back. Kysely's types know the columns of a table but the running code does not, so the prefixed table's
// columns are listed, and the list is checked against the table's type when it is compiled.
// The prefix ends in a double underscore, which no column name holds: a plain column that began with it
// would be taken for a prefixed one (the types below show it, as they showed `transactions.quote_id` under `quote_`).

/**
 * `columns`, checked to name every column of `T`: a column added to the table but not to the list fails to
 * compile, naming the columns missing. Use: `everyColumnOf<QuotesTable>()(['id', …])`.
 */
export function everyColumnOf<T>() {
  return <const L extends readonly (keyof T & string)[]>(
    columns: L & ([Exclude<keyof T, L[number]>] extends [never] ? unknown : { missing: Exclude<keyof T, L[number]> }),
  ): L => columns;
}

/** `table.column as <prefix>column`, each column paired with its own alias (a plain template would pair all). */
type Aliased<T extends string, C extends string, P extends string> = { [K in C]: `${T}.${K} as ${P}${K}` }[C];

/** `table.column as <prefix>column` for each column: what splitPrefixed takes apart. */
export function prefixedColumns<const T extends string, const C extends string, const P extends string>(
  table: T,
  columns: readonly C[],
  prefix: P,
): Aliased<T, C, P>[] {
  return columns.map((column) => `${table}.${column} as ${prefix}${column}` as Aliased<T, C, P>);
}

/** The columns of `R` without the prefix `P`. */
type Plain<R, P extends string> = { [K in keyof R as K extends `${P}${string}` ? never : K]: R[K] };
/** The columns of `R` with the prefix `P`, under their own names. */
type Prefixed<R, P extends string> = { [K in keyof R as K extends `${P}${infer C}` ? C : never]: R[K] };

/** A joined row taken apart: the columns without `prefix` as one row, those with it (unprefixed) as the other. */
export function splitPrefixed<R extends object, const P extends string>(
  row: R,
  prefix: P,
): { plain: Plain<R, P>; prefixed: Prefixed<R, P> } {
  const plain: Record<string, unknown> = {};
  const prefixed: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row)) {
    if (name.startsWith(prefix)) prefixed[name.slice(prefix.length)] = value;
    else plain[name] = value;
  }
  return { plain, prefixed } as { plain: Plain<R, P>; prefixed: Prefixed<R, P> };
}
