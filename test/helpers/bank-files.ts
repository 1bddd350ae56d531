// Bank answers written by hand for the ingest tests: pain.002 status reports and camt.054 notifications, as a
// bank's host-to-host channel would drop them, each one checked against the official schema by the tests that
// use them. Not the fake bank (that one reads our pain.001 files): these say exactly what a test needs.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

const esc = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export interface ReasonSpec {
  code: string;
  info?: string;
}

const reasonXml = (r: ReasonSpec | undefined, indent: string) =>
  r
    ? `${indent}<StsRsnInf><Rsn><Cd>${r.code}</Cd></Rsn>${r.info ? `<AddtlInf>${esc(r.info)}</AddtlInf>` : ''}` +
      '</StsRsnInf>\n'
    : '';

export interface Pain002Spec {
  msgId: string;
  originalMsgId: string;
  groupStatus?: string;
  groupReason?: ReasonSpec;
  batches?: {
    id: string;
    status?: string;
    reason?: ReasonSpec;
    payments?: { endToEndId: string; status?: string; reason?: ReasonSpec; debtorIban?: string }[];
  }[];
}

export function pain002Xml(spec: Pain002Spec): string {
  const batches = (spec.batches ?? []).map((b) => {
    const payments = (b.payments ?? []).map(
      (p) =>
        '      <TxInfAndSts>\n' +
        `        <OrgnlEndToEndId>${p.endToEndId}</OrgnlEndToEndId>\n` +
        (p.status ? `        <TxSts>${p.status}</TxSts>\n` : '') +
        reasonXml(p.reason, '        ') +
        (p.debtorIban
          ? `        <OrgnlTxRef><DbtrAcct><Id><IBAN>${p.debtorIban}</IBAN></Id></DbtrAcct></OrgnlTxRef>\n`
          : '') +
        '      </TxInfAndSts>\n',
    );
    return (
      '    <OrgnlPmtInfAndSts>\n' +
      `      <OrgnlPmtInfId>${esc(b.id)}</OrgnlPmtInfId>\n` +
      (b.status ? `      <PmtInfSts>${b.status}</PmtInfSts>\n` : '') +
      reasonXml(b.reason, '      ') +
      payments.join('') +
      '    </OrgnlPmtInfAndSts>\n'
    );
  });
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.10">\n' +
    '  <CstmrPmtStsRpt>\n' +
    `    <GrpHdr><MsgId>${esc(spec.msgId)}</MsgId><CreDtTm>2026-12-02T08:00:00Z</CreDtTm></GrpHdr>\n` +
    '    <OrgnlGrpInfAndSts>\n' +
    `      <OrgnlMsgId>${esc(spec.originalMsgId)}</OrgnlMsgId>\n` +
    '      <OrgnlMsgNmId>pain.001.001.09</OrgnlMsgNmId>\n' +
    (spec.groupStatus ? `      <GrpSts>${spec.groupStatus}</GrpSts>\n` : '') +
    reasonXml(spec.groupReason, '      ') +
    '    </OrgnlGrpInfAndSts>\n' +
    batches.join('') +
    '  </CstmrPmtStsRpt>\n' +
    '</Document>\n'
  );
}

export interface EntrySpec {
  /** AcctSvcrRef. */
  key?: string;
  direction: 'CRDT' | 'DBIT';
  /** As the bank writes it: "12.50". */
  amount: string;
  currency?: string;
  status?: string;
  endToEndId?: string;
  /** A structured creditor reference (CdtrRefInf/Ref). */
  reference?: string;
  /** An unstructured remittance line. */
  ustrd?: string;
  /** A return reason code: the entry carries RtrInf. */
  returnCode?: string;
  bookedOn?: string;
}

export function entryXml(e: EntrySpec): string {
  const currency = e.currency ?? 'EUR';
  const remittance =
    e.reference || e.ustrd
      ? '          <RmtInf>' +
        (e.ustrd ? `<Ustrd>${esc(e.ustrd)}</Ustrd>` : '') +
        (e.reference ? `<Strd><CdtrRefInf><Ref>${esc(e.reference)}</Ref></CdtrRefInf></Strd>` : '') +
        '</RmtInf>\n'
      : '';
  return (
    '      <Ntry>\n' +
    `        <Amt Ccy="${currency}">${e.amount}</Amt>\n` +
    `        <CdtDbtInd>${e.direction}</CdtDbtInd>\n` +
    `        <Sts><Cd>${e.status ?? 'BOOK'}</Cd></Sts>\n` +
    `        <BookgDt><Dt>${e.bookedOn ?? '2026-12-02'}</Dt></BookgDt>\n` +
    (e.key ? `        <AcctSvcrRef>${esc(e.key)}</AcctSvcrRef>\n` : '') +
    '        <BkTxCd/>\n' +
    '        <NtryDtls><TxDtls>\n' +
    (e.endToEndId ? `          <Refs><EndToEndId>${e.endToEndId}</EndToEndId></Refs>\n` : '') +
    remittance +
    (e.returnCode ? `          <RtrInf><Rsn><Cd>${e.returnCode}</Cd></Rsn></RtrInf>\n` : '') +
    '        </TxDtls></NtryDtls>\n' +
    '      </Ntry>\n'
  );
}

const camtHead = (msgId: string, iban: string) =>
  '<?xml version="1.0" encoding="UTF-8"?>\n' +
  '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08">\n' +
  '  <BkToCstmrDbtCdtNtfctn>\n' +
  `    <GrpHdr><MsgId>${esc(msgId)}</MsgId><CreDtTm>2026-12-02T09:00:00Z</CreDtTm></GrpHdr>\n` +
  '    <Ntfctn>\n' +
  `      <Id>${esc(msgId)}-1</Id>\n` +
  `      <Acct><Id><IBAN>${iban}</IBAN></Id></Acct>\n`;
const CAMT_TAIL = '    </Ntfctn>\n  </BkToCstmrDbtCdtNtfctn>\n</Document>\n';

export function camt054Xml(spec: { msgId: string; iban: string; entries: EntrySpec[] }): string {
  return camtHead(spec.msgId, spec.iban) + spec.entries.map(entryXml).join('') + CAMT_TAIL;
}

/** A camt.054 of `count` entries written as a stream (never held whole), entry `i` from `entry(i)`. */
export async function writeCamt054(
  path: string,
  spec: { msgId: string; iban: string; count: number; entry: (i: number) => EntrySpec },
): Promise<void> {
  const out = createWriteStream(path);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(camtHead(spec.msgId, spec.iban));
  for (let i = 0; i < spec.count; i++) await write(entryXml(spec.entry(i)));
  await write(CAMT_TAIL);
  out.end();
  await once(out, 'close');
}
