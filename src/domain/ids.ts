import { v7 as uuidv7 } from 'uuid';

/** The type prefixes of every system identifier (`Type:<uuid>`). */
export type IdPrefix =
  | 'Customer'
  | 'InternalAccount'
  | 'SystemAccount'
  | 'ExternalAccount'
  | 'BeneficialOwner'
  | 'Document'
  | 'Verification'
  | 'Quote'
  | 'Transaction'
  | 'Lookup'
  | 'Webhook'
  | 'Token'
  | 'PlatformConfig'
  | 'Platform'
  | 'JournalEntry'
  | 'Job'
  | 'Snapshot'
  | 'LogEntry'
  | 'Fault';

/** UUIDv7 ids sort by creation time, which keeps index inserts append-only and pages stable. */
export function newId<P extends IdPrefix>(prefix: P): `${P}:${string}` {
  return `${prefix}:${uuidv7()}`;
}

export function hasPrefix(id: string, prefix: IdPrefix): boolean {
  return id.startsWith(`${prefix}:`) && id.length > prefix.length + 1;
}
