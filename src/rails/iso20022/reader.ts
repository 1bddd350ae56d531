// The streamed reading both inbound parsers (pain002.ts, camt054.ts) share: a file is read in chunks through
// saxes, and a message's parser sees each element open and close with the path above it, emitting the items
// it makes of them. Items are handed out after each chunk, so memory holds one chunk's items and the path,
// never the document: a 100,000-entry notification is read in the memory of one entry.
import { createReadStream } from 'node:fs';
import { SaxesParser } from 'saxes';

/** What refuses a bank file, naming where: the element being read and the line it is on. */
export class BankFileError extends Error {
  constructor(
    readonly element: string,
    readonly line: number,
    readonly detail: string,
  ) {
    super(`line ${line}, <${element}>: ${detail}`);
  }
}

/** The element being read and what is above it, outermost first (local names, namespace checked at the root). */
export interface Cursor {
  readonly path: readonly string[];
  readonly line: number;
  /** The innermost open element's name ('' before the root). */
  readonly element: string;
}

/** A message's parser: told each element's opening and closing, emitting items as they are complete. */
export interface MessageHandler<T> {
  open(name: string, attributes: Readonly<Record<string, string>>, at: Cursor, emit: (item: T) => void): void;
  /** `text` is the element's own text, trimmed (empty for an element holding elements). */
  close(name: string, text: string, at: Cursor, emit: (item: T) => void): void;
  /** After the root closed: anything still held is emitted, or the file refused. */
  end(at: Cursor, emit: (item: T) => void): void;
}

/** No element of these messages holds more text than this (the longest is Max500Text); a bound per leaf. */
const MAX_TEXT = 2_000;
/** Nor is any nested deeper than this: a file that is, is not one of them. */
const MAX_DEPTH = 40;
const CHUNK_BYTES = 64 * 1024;

/** One reading of a message: the saxes parser wired to a handler, with the path, the text and the refusal. */
class Reading<T> {
  readonly parser = new SaxesParser({ xmlns: true, position: true });
  readonly out: T[] = [];
  private readonly path: string[] = [];
  private text = '';
  private failure: BankFileError | undefined;
  /** saxes closes an element left open when an outer close tag comes, then reports that tag: where it did. */
  private lastClose = { name: '', line: 0, column: 0 };
  private readonly cursor: Cursor;
  private readonly emit = (item: T) => this.out.push(item);

  constructor(
    private readonly namespace: string,
    private readonly handler: MessageHandler<T>,
  ) {
    const { parser, path } = this;
    this.cursor = {
      path,
      get line() {
        return parser.line;
      },
      get element() {
        return path.at(-1) ?? '';
      },
    };
    parser.on('error', (err) => this.onError(err));
    parser.on('doctype', () => this.refuse('a DOCTYPE is not allowed in a bank file'));
    parser.on('opentag', (tag) => this.onOpen(tag.local, tag.uri, Object.values(tag.attributes)));
    parser.on('text', (chunk) => this.onText(chunk));
    parser.on('cdata', (chunk) => this.onText(chunk));
    parser.on('closetag', (tag) => this.onClose(tag.local));
  }

  /** Throws the refusal, if there is one. */
  check(): void {
    if (this.failure) throw this.failure;
  }

  end(): void {
    this.guarded(() => this.handler.end(this.cursor, this.emit));
  }

  private refuse(detail: string, element = this.cursor.element || 'Document') {
    this.failure ??= new BankFileError(element, this.parser.line, detail);
  }

  private onError(err: Error) {
    const detail = err.message.replace(/^[^:]*:\d+:\d+: /, '').replace(/\.$/, '');
    const { lastClose, parser } = this;
    const closedHere = lastClose.line === parser.line && lastClose.column === parser.column;
    if (/unexpected close tag/.test(detail) && closedHere)
      this.refuse(`<${lastClose.name}> is not closed before </${this.cursor.element}>`, lastClose.name);
    else this.refuse(detail);
  }

  private onOpen(local: string, uri: string, attrs: { local: string; value: string }[]) {
    if (this.failure) return;
    const { path, namespace } = this;
    if (path.length === 0 && (local !== 'Document' || uri !== namespace))
      return this.refuse(`the root is <${local}> in namespace "${uri}"; expected <Document> in "${namespace}"`, local);
    if (path.length >= MAX_DEPTH) return this.refuse(`nested deeper than ${MAX_DEPTH} elements`, local);
    path.push(local);
    this.text = '';
    const attributes: Record<string, string> = {};
    for (const attr of attrs) attributes[attr.local] = attr.value;
    this.guarded(() => this.handler.open(local, attributes, this.cursor, this.emit));
  }

  private onText(chunk: string) {
    if (this.failure || this.path.length === 0) return;
    this.text += chunk;
    if (this.text.length > MAX_TEXT) this.refuse(`more than ${MAX_TEXT} characters of text`);
  }

  private onClose(local: string) {
    this.lastClose = { name: local, line: this.parser.line, column: this.parser.column };
    if (this.failure) return;
    this.guarded(() => this.handler.close(local, this.text.trim(), this.cursor, this.emit));
    this.path.pop();
    this.text = '';
  }

  private guarded(step: () => void) {
    try {
      step();
    } catch (err) {
      if (err instanceof BankFileError) this.failure ??= err;
      else throw err;
    }
  }
}

/**
 * Reads `filePath` as a `Document` in `namespace` and yields what `handler` emits. Refuses, with a
 * BankFileError naming the element and line, a file that is not well-formed XML, whose root is not a
 * Document in that namespace, or that carries a DOCTYPE (a bank file has none, and entities are a way in).
 */
export async function* readMessage<T>(
  filePath: string,
  namespace: string,
  handler: MessageHandler<T>,
): AsyncGenerator<T> {
  const reading = new Reading(namespace, handler);
  const stream = createReadStream(filePath, { encoding: 'utf8', highWaterMark: CHUNK_BYTES });
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      reading.parser.write(chunk);
      reading.check();
      yield* reading.out.splice(0);
    }
    reading.parser.close();
    reading.check();
    reading.end();
    reading.check();
    yield* reading.out.splice(0);
  } finally {
    stream.destroy();
  }
}

/**
 * A file's root element (its local name, namespace and line), read from its first bytes: which message it
 * is. A BankFileError when the file ends, or breaks, before a root could be read.
 */
export async function rootOf(filePath: string): Promise<{ local: string; uri: string; line: number }> {
  const parser = new SaxesParser({ xmlns: true, position: true });
  let root: { local: string; uri: string; line: number } | undefined;
  let broken: BankFileError | undefined;
  parser.on('error', (err) => {
    broken ??= new BankFileError('Document', parser.line, err.message.replace(/^[^:]*:\d+:\d+: /, ''));
  });
  parser.on('opentag', (tag) => {
    root ??= { local: tag.local, uri: tag.uri, line: parser.line };
  });
  const stream = createReadStream(filePath, { encoding: 'utf8', highWaterMark: 4096 });
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      parser.write(chunk);
      if (root || broken) break;
    }
    if (!root && !broken) parser.close();
  } finally {
    stream.destroy();
  }
  if (root) return root;
  throw broken ?? new BankFileError('Document', parser.line, 'the file holds no XML element');
}

/** The path's last `n` names joined with '/', for matching an element by where it sits. */
export function tail(path: readonly string[], n: number): string {
  return path.slice(-n).join('/');
}
