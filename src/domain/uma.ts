/** A UMA address: `$` then a local part, `@`, and a domain (`$alice@example.com`). */
const UMA_ADDRESS = /^\$[a-zA-Z0-9._+-]{1,64}@[a-zA-Z0-9-]+(\.[a-zA-Z0-9-]+)+$/;

export function isUmaAddress(value: string): boolean {
  return UMA_ADDRESS.test(value);
}

export function umaLocalPart(value: string): string {
  return value.slice(1, value.indexOf('@'));
}

const SANDBOX_UMA_DOMAINS = ['sandbox.uma.money', 'sandbox.grid.uma.money'];
const SANDBOX_UMA_BEHAVIOURS = ['success', 'pending.long', 'fail.compliance'];

export interface SandboxUmaReceiver {
  address: string;
  /** The currency the receiver takes: the last label of the local part (`$success.eur@…` → EUR). */
  currency: string;
  behaviour: 'success' | 'pending.long' | 'fail.compliance';
}

/** The sandbox's test UMA addresses (`$success.usd@sandbox.uma.money`, …); undefined for any other address. */
export function sandboxUmaReceiver(address: string): SandboxUmaReceiver | undefined {
  if (!isUmaAddress(address)) return undefined;
  const at = address.indexOf('@');
  const domain = address.slice(at + 1).toLowerCase();
  const local = address.slice(1, at).toLowerCase();
  const dot = local.lastIndexOf('.');
  const behaviour = local.slice(0, dot);
  if (!SANDBOX_UMA_DOMAINS.includes(domain) || !SANDBOX_UMA_BEHAVIOURS.includes(behaviour)) return undefined;
  return { address, currency: local.slice(dot + 1).toUpperCase(), behaviour: behaviour as SandboxUmaReceiver['behaviour'] };
}
