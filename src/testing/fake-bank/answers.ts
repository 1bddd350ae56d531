// The fake bank's answers, streamed element by element: pain.002.001.10 status reports and camt.054.001.08
// debit and credit notifications, in the shapes banks send for host-to-host bulk payments. Every file is held
// to the official XSDs by the tests (test/testing/fake-bank.test.ts).
import { esc, StagedFile } from './xml-file.ts';

const PAIN002_NS = 'urn:iso:std:iso:20022:tech:xsd:pain.002.001.10';
const CAMT054_NS = 'urn:iso:std:iso:20022:tech:xsd:camt.054.001.08';

/** The bank's own name, in every header. */
export const FAKE_BANK_NAME = 'Payouts Fake Bank';

function reason(code: string | undefined): string {
  return code ? `<StsRsnInf><Rsn><Cd>${esc(code)}</Cd></Rsn></StsRsnInf>` : '';
}

export interface Pain002Header {
  msgId: string;
  createdAt: string;
  originalMsgId: string;
  originalNbOfTxs?: string | undefined;
  originalCtrlSum?: string | undefined;
  /** Omitted in a report that adds to an earlier one (a payment rejected later). */
  groupStatus?: 'ACCP' | 'PART' | 'RJCT' | undefined;
  groupCode?: string | undefined;
}

export interface Pain002Tx {
  statusId: string;
  instrId?: string | undefined;
  endToEndId: string;
  status: 'ACSC' | 'ACSP' | 'RJCT';
  code?: string | undefined;
  amount: string;
  currency: string;
  /** Our account, quoted back (OrgnlTxRef/DbtrAcct) as banks do: the service checks the file is its own. */
  debtorIban?: string | undefined;
}

/** A payment status report: a group, then per original batch its transactions. */
export class Pain002Writer {
  private inBatch = false;

  private constructor(private readonly file: StagedFile) {}

  static async start(inbox: string, name: string, header: Pain002Header): Promise<Pain002Writer> {
    const writer = new Pain002Writer(await StagedFile.create(inbox, name));
    await writer.file.write(
      `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="${PAIN002_NS}"><CstmrPmtStsRpt>` +
        `<GrpHdr><MsgId>${esc(header.msgId)}</MsgId><CreDtTm>${header.createdAt}</CreDtTm>` +
        `<InitgPty><Nm>${FAKE_BANK_NAME}</Nm></InitgPty></GrpHdr>` +
        `<OrgnlGrpInfAndSts><OrgnlMsgId>${esc(header.originalMsgId)}</OrgnlMsgId>` +
        `<OrgnlMsgNmId>pain.001.001.09</OrgnlMsgNmId>` +
        (header.originalNbOfTxs ? `<OrgnlNbOfTxs>${esc(header.originalNbOfTxs)}</OrgnlNbOfTxs>` : '') +
        (header.originalCtrlSum ? `<OrgnlCtrlSum>${esc(header.originalCtrlSum)}</OrgnlCtrlSum>` : '') +
        (header.groupStatus ? `<GrpSts>${header.groupStatus}</GrpSts>${reason(header.groupCode)}` : '') +
        '</OrgnlGrpInfAndSts>\n',
    );
    return writer;
  }

  async batch(pmtInfId: string): Promise<void> {
    await this.file.write(
      (this.inBatch ? '</OrgnlPmtInfAndSts>\n' : '') +
        `<OrgnlPmtInfAndSts><OrgnlPmtInfId>${esc(pmtInfId)}</OrgnlPmtInfId>\n`,
    );
    this.inBatch = true;
  }

  async tx(tx: Pain002Tx): Promise<void> {
    await this.file.write(
      `<TxInfAndSts><StsId>${esc(tx.statusId)}</StsId>` +
        (tx.instrId ? `<OrgnlInstrId>${esc(tx.instrId)}</OrgnlInstrId>` : '') +
        `<OrgnlEndToEndId>${esc(tx.endToEndId)}</OrgnlEndToEndId><TxSts>${tx.status}</TxSts>${reason(tx.code)}` +
        `<OrgnlTxRef><Amt><InstdAmt Ccy="${esc(tx.currency)}">${esc(tx.amount)}</InstdAmt></Amt>` +
        (tx.debtorIban ? `<DbtrAcct><Id><IBAN>${esc(tx.debtorIban)}</IBAN></Id></DbtrAcct>` : '') +
        '</OrgnlTxRef>' +
        '</TxInfAndSts>\n',
    );
  }

  async end(): Promise<void> {
    await this.file.write(`${this.inBatch ? '</OrgnlPmtInfAndSts>' : ''}</CstmrPmtStsRpt></Document>\n`);
    await this.file.finish();
  }
}

export interface Camt054Entry {
  direction: 'DBIT' | 'CRDT';
  amount: string;
  currency: string;
  bookedAt: string;
  /** The bank's own reference of the entry: unique per entry. */
  acctSvcrRef: string;
  /** The bank transaction code: issued credit transfer, its return, or a credit received. */
  code: 'ICDT/ESCT' | 'ICDT/RRTN' | 'RCDT/ESCT';
  refs: {
    msgId?: string | undefined;
    pmtInfId?: string | undefined;
    instrId?: string | undefined;
    endToEndId?: string | undefined;
  };
  /** The other side: the creditor of a payment out, the debtor of a credit. */
  party: { role: 'Cdtr' | 'Dbtr'; name?: string | undefined; account?: string | undefined; isIban?: boolean };
  remittance?: string | undefined;
  returnCode?: string | undefined;
}

function account(id: string, isIban: boolean): string {
  return isIban ? `<Id><IBAN>${esc(id)}</IBAN></Id>` : `<Id><Othr><Id>${esc(id)}</Id></Othr></Id>`;
}

/** A debit and credit notification: per account a Ntfctn, then its entries (one per payment). */
export class Camt054Writer {
  private inNotification = false;
  private notifications = 0;

  private constructor(
    private readonly file: StagedFile,
    private readonly msgId: string,
    private readonly createdAt: string,
  ) {}

  static async start(
    inbox: string,
    name: string,
    header: { msgId: string; createdAt: string },
  ): Promise<Camt054Writer> {
    const writer = new Camt054Writer(await StagedFile.create(inbox, name), header.msgId, header.createdAt);
    await writer.file.write(
      `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="${CAMT054_NS}"><BkToCstmrDbtCdtNtfctn>` +
        `<GrpHdr><MsgId>${esc(header.msgId)}</MsgId><CreDtTm>${header.createdAt}</CreDtTm></GrpHdr>\n`,
    );
    return writer;
  }

  /** Opens the notification of an account (our debtor account, named by IBAN as a pain.001 names it). */
  async account(iban: string | undefined): Promise<void> {
    this.notifications += 1;
    const id = `${this.msgId.slice(0, 30)}-${this.notifications}`;
    await this.file.write(
      `${this.inNotification ? '</Ntfctn>\n' : ''}<Ntfctn><Id>${esc(id)}</Id><CreDtTm>${this.createdAt}</CreDtTm>` +
        `<Acct>${account(iban ?? 'NOTPROVIDED', iban !== undefined)}</Acct>\n`,
    );
    this.inNotification = true;
  }

  async entry(entry: Camt054Entry): Promise<void> {
    const [family, subFamily] = entry.code.split('/');
    const amount =
      `<Amt Ccy="${esc(entry.currency)}">${esc(entry.amount)}</Amt>` + `<CdtDbtInd>${entry.direction}</CdtDbtInd>`;
    const refs = Object.entries({
      MsgId: entry.refs.msgId,
      PmtInfId: entry.refs.pmtInfId,
      InstrId: entry.refs.instrId,
      EndToEndId: entry.refs.endToEndId ?? 'NOTPROVIDED',
    })
      .flatMap(([tag, value]) => (value === undefined ? [] : [`<${tag}>${esc(value)}</${tag}>`]))
      .join('');
    const party = entry.party;
    const parties =
      `<RltdPties><${party.role}><Pty><Nm>${esc(party.name ?? 'NOTPROVIDED')}</Nm></Pty></${party.role}>` +
      (party.account ? `<${party.role}Acct>${account(party.account, party.isIban ?? false)}</${party.role}Acct>` : '') +
      '</RltdPties>';
    await this.file.write(
      `<Ntry>${amount}<Sts><Cd>BOOK</Cd></Sts><BookgDt><DtTm>${entry.bookedAt}</DtTm></BookgDt>` +
        `<ValDt><Dt>${entry.bookedAt.slice(0, 10)}</Dt></ValDt><AcctSvcrRef>${esc(entry.acctSvcrRef)}</AcctSvcrRef>` +
        `<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>${family}</Cd><SubFmlyCd>${subFamily}</SubFmlyCd></Fmly>` +
        '</Domn></BkTxCd>' +
        `<NtryDtls><TxDtls><Refs>${refs}</Refs>${amount}${parties}` +
        (entry.remittance ? `<RmtInf><Ustrd>${esc(entry.remittance)}</Ustrd></RmtInf>` : '') +
        (entry.returnCode ? `<RtrInf><Rsn><Cd>${esc(entry.returnCode)}</Cd></Rsn></RtrInf>` : '') +
        '</TxDtls></NtryDtls></Ntry>\n',
    );
  }

  async end(): Promise<void> {
    await this.file.write(`${this.inNotification ? '</Ntfctn>' : ''}</BkToCstmrDbtCdtNtfctn></Document>\n`);
    await this.file.finish();
  }
}
