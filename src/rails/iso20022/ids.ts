// The ids a bank file carries. ISO 20022 identifiers are Max35Text, and banks echo them back in pain.002
// and camt.054: an EndToEndId must name exactly one of our payments and a MsgId exactly one of our files, so
// both are compact forms of our own uuids (32 hex digits, no prefix, no dashes), reversible without a lookup.
const COMPACT = /^[0-9a-f]{32}$/;

function compactOf(id: string, prefix: string): string {
  if (!id.startsWith(`${prefix}:`)) throw new Error(`${id} is not a ${prefix} id`);
  const compact = id
    .slice(prefix.length + 1)
    .replaceAll('-', '')
    .toLowerCase();
  if (!COMPACT.test(compact)) throw new Error(`${id} does not hold a uuid`);
  return compact;
}

function uuidOf(compact: string): string | undefined {
  const hex = compact.toLowerCase();
  if (!COMPACT.test(hex)) return undefined;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The EndToEndId of a payment: its transaction id's 32 hex digits. */
export function endToEndIdOf(transactionId: string): string {
  return compactOf(transactionId, 'Transaction');
}

/** The transaction an EndToEndId names, or undefined when it cannot be one of ours (never sent by us). */
export function transactionIdOfEndToEnd(endToEndId: string): string | undefined {
  const uuid = uuidOf(endToEndId.trim());
  return uuid ? `Transaction:${uuid}` : undefined;
}

/** A pain.001's MsgId: 'P' and its bank_files id's 32 hex digits (33 characters). */
export function msgIdOf(bankFileId: string): string {
  return `P${compactOf(bankFileId, 'BankFile')}`;
}

/** The bank_files id a MsgId names, or undefined when it is not one of ours. */
export function bankFileIdOfMsgId(msgId: string): string | undefined {
  const trimmed = msgId.trim();
  const uuid = trimmed.startsWith('P') ? uuidOf(trimmed.slice(1)) : undefined;
  return uuid ? `BankFile:${uuid}` : undefined;
}

/** A payment information block's id: the file's MsgId and its place in the file (at most 35 characters). */
export function pmtInfIdOf(msgId: string, index: number): string {
  return `${msgId}-${index + 1}`;
}
