import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { link, rm, unlink } from 'node:fs/promises';
import { makeFoldersAsync } from './folders.ts';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Uploaded document files, content-addressed under DATA_DIR/documents/<first two hex of sha256>/<sha256>.
 * An upload is streamed to a temporary file (never held in memory) while it is hashed; it is then put in
 * place with a hard link, which either creates the final name or finds identical bytes already there.
 */
export interface ReceivedFile {
  tempPath: string;
  sha256: string;
  sizeBytes: number;
  /** The first bytes, for recognising the format by content. */
  head: Buffer;
  /** The source stream ended early because it hit its size limit. */
  truncated: boolean;
}

export interface DocumentFileStore {
  root: string;
  tempDir: string;
  receive(source: Readable & { truncated?: boolean }, headBytes: number): Promise<ReceivedFile>;
  /** Makes the content available under its hash. Idempotent: a store transaction retried after it is safe. */
  place(file: ReceivedFile): Promise<void>;
  /** Removes a file no row references any more. Missing is fine. */
  remove(sha256: string): Promise<void>;
  discard(tempPath: string): Promise<void>;
  open(sha256: string): ReadStream;
}

const SHA256 = /^[0-9a-f]{64}$/;

export function makeDocumentFileStore(dataDir: string): DocumentFileStore {
  const root = join(dataDir, 'documents');
  const tempDir = join(root, 'tmp');
  const pathOf = (sha256: string): string => {
    if (!SHA256.test(sha256)) throw new Error(`not a sha256: ${sha256}`);
    return join(root, sha256.slice(0, 2), sha256);
  };

  return {
    root,
    tempDir,

    async receive(source, headBytes) {
      await makeFoldersAsync(tempDir);
      const tempPath = join(tempDir, `${randomBytes(16).toString('hex')}.part`);
      const hash = createHash('sha256');
      let sizeBytes = 0;
      const headChunks: Buffer[] = [];
      let headLength = 0;
      const tap = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          sizeBytes += chunk.length;
          if (headLength < headBytes) {
            headChunks.push(chunk.subarray(0, headBytes - headLength));
            headLength += Math.min(chunk.length, headBytes - headLength);
          }
          done(null, chunk);
        },
      });
      try {
        await pipeline(source, tap, createWriteStream(tempPath, { flags: 'wx', mode: 0o600 }));
      } catch (err) {
        await rm(tempPath, { force: true });
        throw err;
      }
      return {
        tempPath,
        sha256: hash.digest('hex'),
        sizeBytes,
        head: Buffer.concat(headChunks),
        truncated: source.truncated === true,
      };
    },

    async place(file) {
      const target = pathOf(file.sha256);
      await makeFoldersAsync(join(root, file.sha256.slice(0, 2)));
      try {
        await link(file.tempPath, target);
      } catch (err) {
        // Same name means same bytes: another upload (or an earlier attempt of this one) placed it already.
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    },

    async remove(sha256) {
      await unlink(pathOf(sha256)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
    },

    async discard(tempPath) {
      await rm(tempPath, { force: true });
    },

    open(sha256) {
      return createReadStream(pathOf(sha256));
    },
  };
}
