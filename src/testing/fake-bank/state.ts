// What the fake bank remembers between runs, in a folder of its own: the files it has read (a MsgId it has
// seen is refused when it comes again, as real banks refuse it) and the answers it owes later (a payment
// booked or rejected after a delay, a return days after the booking), each a JSON-lines file named by when
// it is due. Answers are written from what is recorded only, so a crash and a rerun write the same bytes.
import { createHash } from 'node:crypto';
import { createReadStream, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { appendFile, open } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { makeFolders } from '../../store/folders.ts';
import type { Later } from './fates.ts';
import type { Pain001Payment } from './pain001-reader.ts';
import { syncDir } from './xml-file.ts';

export interface SeenFile {
  name: string;
  sha256: string;
  msgId: string;
  /** Refused whole: a duplicate MsgId, or no pain.001 the bank could read. */
  refused?: string | undefined;
}

/** The head of an answer owed later; its payments follow, a line each. */
export interface LaterHeader {
  what: Later['what'];
  dueAt: number;
  originalMsgId: string;
  code?: string | undefined;
}

export type LaterPayment = Omit<Pain001Payment, 'kind'>;

/** An answer owed later, being written. */
export interface OwedAnswer {
  add(payment: LaterPayment): Promise<void>;
  close(): Promise<void>;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export class FakeBankState {
  private readonly seenPath: string;
  private readonly laterDir: string;

  constructor(readonly dir: string) {
    this.seenPath = join(dir, 'seen.jsonl');
    this.laterDir = join(dir, 'later');
    makeFolders(join(this.laterDir, '.tmp'));
  }

  seen(): SeenFile[] {
    let text: string;
    try {
      text = readFileSync(this.seenPath, 'utf8');
    } catch {
      return [];
    }
    // A line cut short by a crash is the last one: the file it names is read again.
    return text.split('\n').flatMap((line) => {
      try {
        return line ? [JSON.parse(line) as SeenFile] : [];
      } catch {
        return [];
      }
    });
  }

  async remember(file: SeenFile): Promise<void> {
    await appendFile(this.seenPath, `${JSON.stringify(file)}\n`);
    const handle = await open(this.seenPath, 'r+');
    await handle.sync();
    await handle.close();
  }

  /**
   * A new answer owed later, its payments added as the file is read (memory stays flat), named only once
   * written whole: a crash leaves none half written.
   */
  async owe(header: LaterHeader): Promise<OwedAnswer> {
    const due = String(header.dueAt).padStart(15, '0');
    const name = `${due}-${sha256Hex(header.originalMsgId).slice(0, 12)}-${header.what}-${header.code ?? ''}.jsonl`;
    const tmp = join(this.laterDir, '.tmp', name);
    const handle = await open(tmp, 'w');
    const lines: string[] = [JSON.stringify(header)];
    const laterDir = this.laterDir;
    return {
      async add(payment) {
        lines.push(JSON.stringify(payment));
        if (lines.length >= 1000) await handle.write(`${lines.splice(0).join('\n')}\n`);
      },
      async close() {
        if (lines.length > 0) await handle.write(`${lines.join('\n')}\n`);
        await handle.sync();
        await handle.close();
        renameSync(tmp, join(laterDir, name));
        await syncDir(laterDir);
      },
    };
  }

  /** The answers owed by `now`, in the order they fell due. */
  due(now: number): string[] {
    return readdirSync(this.laterDir)
      .filter((name) => name.endsWith('.jsonl') && Number(name.slice(0, 15)) <= now)
      .sort()
      .map((name) => join(this.laterDir, name));
  }

  /** How many answers are still owed (for a run that waits for them). */
  owed(): number {
    return readdirSync(this.laterDir).filter((name) => name.endsWith('.jsonl')).length;
  }

  async *read(path: string): AsyncGenerator<LaterHeader | LaterPayment> {
    const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
    for await (const line of lines) if (line) yield JSON.parse(line) as LaterHeader | LaterPayment;
  }

  settled(path: string): void {
    rmSync(path, { force: true });
  }
}
