import type { ValidateFunction } from 'ajv';

/**
 * Ajv says "must NOT have additional properties" of the object; the caller needs to hear which field is
 * the stranger. The field path is added by the error mapping (it appends `additionalProperty`), so the
 * answer reads "destination.nickname is not a field this object takes", as the account-type rules say it.
 */
export function namingUnknownFields(validate: ValidateFunction): ValidateFunction {
  const named = ((data: unknown) => {
    const valid = validate(data);
    for (const error of validate.errors ?? [])
      if (error.keyword === 'additionalProperties') error.message = 'is not a field this object takes';
    named.errors = validate.errors ?? null;
    return valid;
  }) as ValidateFunction;
  return named;
}
