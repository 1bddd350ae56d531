import type { Static, TSchema } from '@sinclair/typebox';

/**
 * The keyword that names a schema for the OpenAPI document. Validation ignores it (an unknown keyword to
 * Ajv); src/http/openapi.ts replaces every schema carrying it with a `$ref` to
 * `#/components/schemas/<name>`, so generated clients get a `Transaction` type instead of an inline shape.
 * A JSON Schema `$id` would do the same for @fastify/swagger, but Ajv refuses a schema in which one `$id`
 * appears twice (a Transaction holds two CurrencyAmounts), so the name travels in a keyword of its own.
 */
export const COMPONENT_NAME = 'x-component-name';

/**
 * Names `schema` as a component of the OpenAPI document, with an example typed by the schema itself (so
 * an example that drifts from its schema fails the type check, and the OpenAPI test checks it again).
 * The TypeBox type, and so the route's static types, are unchanged.
 */
export function component<T extends TSchema>(name: string, schema: T, example?: Static<T>): T {
  return { ...schema, [COMPONENT_NAME]: name, ...(example === undefined ? {} : { examples: [example] }) };
}

/** The component name a schema carries, if any. */
export function componentName(schema: TSchema): string | undefined {
  const name = (schema as Record<string, unknown>)[COMPONENT_NAME];
  return typeof name === 'string' ? name : undefined;
}

/** The example a named schema carries, if any. */
export function exampleOf(schema: TSchema): unknown {
  const examples = (schema as { examples?: unknown[] }).examples;
  return examples?.[0];
}
