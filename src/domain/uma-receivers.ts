import { umaLocalPart } from './uma.ts';

/*
 * Receiver lookups: the sandbox's test UMA addresses and the bounds a lookup quotes. Pure data and rules;
 * the receiver-lookup service applies them.
 */

/** The domains the sandbox's test receivers live on (guides use the first, schema examples the second). */
export const SANDBOX_UMA_DOMAINS = ['sandbox.uma.money', 'sandbox.grid.uma.money'] as const;

/** What a payment to a test receiver will do; stored with the lookup so a later quote can act it out. */
export type SandboxReceiverBehaviour = 'SUCCESS' | 'PENDING_LONG' | 'FAIL_COMPLIANCE';

export interface SandboxTestReceiver {
  currencies: readonly string[];
  behaviour: SandboxReceiverBehaviour;
}

/** Local part (without `$`) → receiver. Each takes one currency, named by the address's last segment. */
const TEST_RECEIVERS: Readonly<Record<string, SandboxTestReceiver>> = {
  'success.usd': { currencies: ['USD'], behaviour: 'SUCCESS' },
  'success.eur': { currencies: ['EUR'], behaviour: 'SUCCESS' },
  'success.mxn': { currencies: ['MXN'], behaviour: 'SUCCESS' },
  'pending.long.usd': { currencies: ['USD'], behaviour: 'PENDING_LONG' },
  'fail.compliance.usd': { currencies: ['USD'], behaviour: 'FAIL_COMPLIANCE' },
};

/** The sandbox test receiver at this (well-formed) UMA address, if it is one. Case-insensitive, as domains are. */
export function sandboxTestReceiver(umaAddress: string): SandboxTestReceiver | undefined {
  const lower = umaAddress.toLowerCase();
  const domain = lower.slice(lower.indexOf('@') + 1);
  if (!(SANDBOX_UMA_DOMAINS as readonly string[]).includes(domain)) return undefined;
  return TEST_RECEIVERS[umaLocalPart(lower)];
}

export const SANDBOX_TEST_RECEIVER_ADDRESSES: readonly string[] = SANDBOX_UMA_DOMAINS.flatMap((domain) =>
  Object.keys(TEST_RECEIVERS).map((local) => `$${local}@${domain}`),
);

/** Payer data a receiver asks for before it accepts a payment ({name: CustomerInfoFieldName, mandatory}). */
export interface PayerDataField {
  name: string;
  mandatory: boolean;
}

/**
 * Test receivers stand for another institution, which asks who is paying (the travel-rule minimum); the
 * platform's own customers and its external accounts ask for nothing, the platform already knows the payer.
 */
export const TEST_RECEIVER_PAYER_DATA: readonly PayerDataField[] = [
  { name: 'FULL_NAME', mandatory: true },
  { name: 'BIRTH_DATE', mandatory: false },
];

/**
 * Bounds a lookup quotes for every receiving currency, in its smallest unit: at least 1 unit, and at most
 * 1e11, the same ceiling as one sandbox funding. Receivers publish no tighter limits here.
 */
export const LOOKUP_MIN_AMOUNT = 1;
export const LOOKUP_MAX_AMOUNT = 100_000_000_000;
