/** A UMA address: `$` then a local part, `@`, and a domain (`$alice@example.com`). */
const UMA_ADDRESS = /^\$[a-zA-Z0-9._+-]{1,64}@[a-zA-Z0-9-]+(\.[a-zA-Z0-9-]+)+$/;

export function isUmaAddress(value: string): boolean {
  return UMA_ADDRESS.test(value);
}

export function umaLocalPart(value: string): string {
  return value.slice(1, value.indexOf('@'));
}
