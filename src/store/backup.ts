// Backup and restore of an embedded installation: one .tar.gz holding a consistent copy of the database
// (SQLite's online backup, taken while servers keep running), the uploaded document files the copy
// refers to, the generated server key file when there is one, and a manifest. A restore unpacks it beside
// the data, checks it (format, SQLite integrity, the server key against the key check), and only then puts
// it in place; whatever it replaces is moved aside, never deleted.
import { existsSync } from 'node:fs';
import { makeFoldersAsync } from './folders.ts';
import { chmod, copyFile, link, mkdir, mkdtemp, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import * as tar from 'tar';
import { SQLITE_FILE, sqlitePath } from './paths.ts';
import { acceptedKeyChecks, DATA_KEY_SETTINGS } from './data-key.ts';
import { keyCheckValue } from './key-check.ts';
import { OperatorError } from '../domain/errors.ts';

const FORMAT = 'payouts-backup';
const FORMAT_VERSION = 1;
const MANIFEST = 'manifest.json';
const DOCUMENTS = 'documents';
const KEY_FILE = 'secret.key';

export interface BackupManifest {
  format: typeof FORMAT;
  formatVersion: number;
  /** The payouts version that wrote it. */
  payoutsVersion: string;
  createdAt: string;
  /**
   * The check value (store/key-check.ts) of a server key the database accepts, null when no process has
   * run on it yet. During a key rotation it accepts two: see keyChecks.
   */
  keyCheck: string | null;
  /** Every key the database accepts (absent in backups made before key rotation). */
  keyChecks?: string[];
  documents: number;
  /** The archive holds DATA_DIR/secret.key, and so must be kept as secret as the key. */
  includesKeyFile: boolean;
}

/** A backup that cannot be made or restored, for a reason the operator can act on. */
export class BackupError extends OperatorError {}

function readStaged(file: string): { keyChecks: string[]; documents: string[] } {
  const db = new SqliteDatabase(file, { fileMustExist: true });
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new BackupError(`the database copy is damaged: ${String(integrity)}`);
    const read = (name: string) =>
      (db.prepare('select value from server_settings where name = ?').get(name) as { value: string } | undefined)
        ?.value;
    const keyChecks = acceptedKeyChecks({
      dataKey: read(DATA_KEY_SETTINGS.dataKey),
      legacy: read(DATA_KEY_SETTINGS.legacy),
    });
    const rows = db.prepare('select sha256 from document_files').all() as Array<{ sha256: string }>;
    return { keyChecks, documents: rows.map((r) => r.sha256) };
  } finally {
    db.close();
  }
}

const documentPath = (root: string, sha256: string) => join(root, DOCUMENTS, sha256.slice(0, 2), sha256);

/**
 * Writes a backup of dataDir's embedded installation to `file` (mode 0600, put in place only once complete).
 * Safe while servers run: the database copy is SQLite's online backup, one consistent snapshot.
 */
export async function backupDataDir(
  dataDir: string,
  file: string,
  meta: { payoutsVersion: string; nowMs: number },
): Promise<BackupManifest & { missingDocuments: string[] }> {
  const staging = await mkdtemp(join(dataDir, '.backup-'));
  try {
    const source = new SqliteDatabase(sqlitePath(dataDir), { fileMustExist: true });
    try {
      await source.backup(join(staging, SQLITE_FILE));
    } finally {
      source.close();
    }
    const { keyChecks, documents } = readStaged(join(staging, SQLITE_FILE));
    // Exactly the files the snapshot refers to. They are content-addressed and never change, so a hard
    // link is a faithful copy; one removed since the snapshot was taken is reported, not invented.
    const missingDocuments: string[] = [];
    for (const sha256 of documents) {
      const target = documentPath(staging, sha256);
      await makeFoldersAsync(dirname(target));
      await link(documentPath(dataDir, sha256), target).catch(async (err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') missingDocuments.push(sha256);
        else if (err.code === 'EXDEV' || err.code === 'EPERM') await copyFile(documentPath(dataDir, sha256), target);
        else throw err;
      });
    }
    const includesKeyFile = existsSync(join(dataDir, KEY_FILE));
    if (includesKeyFile) await copyFile(join(dataDir, KEY_FILE), join(staging, KEY_FILE));
    const manifest: BackupManifest = {
      format: FORMAT,
      formatVersion: FORMAT_VERSION,
      payoutsVersion: meta.payoutsVersion,
      createdAt: new Date(meta.nowMs).toISOString(),
      keyCheck: keyChecks.at(-1) ?? null,
      keyChecks,
      documents: documents.length - missingDocuments.length,
      includesKeyFile,
    };
    await writeFile(join(staging, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    const entries = [
      MANIFEST,
      SQLITE_FILE,
      ...(documents.length ? [DOCUMENTS] : []),
      ...(includesKeyFile ? [KEY_FILE] : []),
    ];
    const partial = `${file}.partial`;
    await tar.c({ gzip: true, file: partial, cwd: staging, portable: true }, entries);
    await chmod(partial, 0o600);
    await rename(partial, file);
    return { ...manifest, missingDocuments };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

export interface RestoreOptions {
  /** The check value of the key this process runs with (SECRET_KEY, or DATA_DIR/secret.key). */
  currentKeyCheck: string;
  /** The key comes from DATA_DIR/secret.key (no SECRET_KEY): the archive's key file replaces it. */
  keyFromFile: boolean;
  /** Replace an existing database (moved aside into DATA_DIR/replaced-TIME/). */
  force: boolean;
  nowMs: number;
}

async function readManifest(staging: string): Promise<BackupManifest> {
  const text = await readFile(join(staging, MANIFEST), 'utf8').catch(() => undefined);
  const manifest = text ? (JSON.parse(text) as Partial<BackupManifest>) : undefined;
  if (manifest?.format !== FORMAT || !existsSync(join(staging, SQLITE_FILE)))
    throw new BackupError('this file is not a payouts backup (no manifest or no database in it)');
  if ((manifest.formatVersion ?? 0) > FORMAT_VERSION)
    throw new BackupError(`this backup's format ${manifest.formatVersion} is newer than this payouts reads`);
  return manifest as BackupManifest;
}

/** The server key the restored database will run with must be the key it was set up with. */
async function checkKey(staging: string, keyChecks: string[], options: RestoreOptions): Promise<boolean> {
  const useKeyFile = options.keyFromFile && existsSync(join(staging, KEY_FILE));
  if (keyChecks.length === 0) return useKeyFile;
  const key = useKeyFile ? Buffer.from((await readFile(join(staging, KEY_FILE), 'utf8')).trim(), 'hex') : undefined;
  const check = key ? keyCheckValue(key) : options.currentKeyCheck;
  if (!keyChecks.includes(check)) {
    throw new BackupError(
      useKeyFile
        ? "the key file in this backup is not the database's key: the backup is inconsistent"
        : 'this backup was made with another server key: run restore with the SECRET_KEY the backup was made with',
    );
  }
  return useKeyFile;
}

/** Moves the installation's current files into DATA_DIR/replaced-TIME/, so a restore destroys nothing. */
async function moveAside(dataDir: string, nowMs: number, withKey: boolean): Promise<string> {
  const aside = join(dataDir, `replaced-${new Date(nowMs).toISOString().replace(/[:.]/g, '-')}`);
  await mkdir(aside);
  const names = [SQLITE_FILE, `${SQLITE_FILE}-wal`, `${SQLITE_FILE}-shm`, DOCUMENTS, ...(withKey ? [KEY_FILE] : [])];
  for (const name of names) {
    if (existsSync(join(dataDir, name))) await rename(join(dataDir, name), join(aside, name));
  }
  return aside;
}

/** Puts the staged document files in place; same name means same bytes, so existing ones stay. */
async function placeDocuments(staging: string, dataDir: string): Promise<void> {
  const root = join(staging, DOCUMENTS);
  if (!existsSync(root)) return;
  for (const prefix of await readdir(root)) {
    await makeFoldersAsync(join(dataDir, DOCUMENTS, prefix));
    for (const name of await readdir(join(root, prefix))) {
      const target = join(dataDir, DOCUMENTS, prefix, name);
      if (!existsSync(target)) await rename(join(root, prefix, name), target);
    }
  }
}

/**
 * Restores a backup into dataDir. The caller holds dataDir exclusively (no server or command runs on it).
 * Returns the manifest and where the replaced files went, if any.
 */
export async function restoreDataDir(
  dataDir: string,
  file: string,
  options: RestoreOptions,
): Promise<{ manifest: BackupManifest; replacedInto: string | undefined }> {
  if (!existsSync(file)) throw new BackupError(`no file ${file}`);
  const existing = existsSync(sqlitePath(dataDir));
  if (existing && !options.force) {
    throw new BackupError(
      `a database is already at ${sqlitePath(dataDir)}: restore --force moves it (and its documents) aside ` +
        'into DATA_DIR/replaced-TIME/ first, or restore into an empty DATA_DIR',
    );
  }
  const staging = await mkdtemp(join(dataDir, '.restore-'));
  try {
    // Only plain files and folders, inside the staging folder (tar refuses absolute paths and `..`).
    await tar
      .x({
        file,
        cwd: staging,
        strict: true,
        filter: (_path, entry) => 'type' in entry && /^(File|Directory)$/.test(entry.type),
      })
      .catch((err: unknown) => {
        throw new BackupError(`${file} is not a payouts backup: ${err instanceof Error ? err.message : String(err)}`);
      });
    const manifest = await readManifest(staging);
    const { keyChecks } = readStaged(join(staging, SQLITE_FILE));
    const useKeyFile = await checkKey(staging, keyChecks, options);
    const replacedInto = existing ? await moveAside(dataDir, options.nowMs, useKeyFile) : undefined;
    for (const stale of [`${SQLITE_FILE}-wal`, `${SQLITE_FILE}-shm`]) await rm(join(dataDir, stale), { force: true });
    await rename(join(staging, SQLITE_FILE), sqlitePath(dataDir));
    await placeDocuments(staging, dataDir);
    if (useKeyFile) {
      await rename(join(staging, KEY_FILE), join(dataDir, KEY_FILE));
      await chmod(join(dataDir, KEY_FILE), 0o600);
    }
    return { manifest, replacedInto };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
