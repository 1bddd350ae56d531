import { bindDeps } from './bind.ts';
import type { ReadStream } from 'node:fs';
import type { Static } from '@sinclair/typebox';
import type { Document as DocumentSchema } from '../wire/documents.ts';
import { AppError, conflict, invalidInput, notFound } from '../domain/errors.ts';
import { iso } from '../domain/clock.ts';
import { hasPrefix, newId } from '../domain/ids.ts';
import {
  MAX_DOCUMENT_BYTES,
  sniffContentType,
  type DocumentContentType,
  type DocumentFields,
} from '../domain/documents.ts';
import type { DocumentFileStore, ReceivedFile } from '../store/document-files.ts';
import type { Db, Tx } from '../store/db.ts';
import type { DocumentsTable } from '../store/schema.ts';
import { keysetPage, mapPage } from '../store/paging.ts';
import type { Page, PageRequest } from '../domain/paging.ts';
import { scopeNowMs, type Ctx, type Scope } from '../context.ts';
import type { BeneficialOwnerService } from './beneficial-owners.ts';
import type { CustomerService } from './customers.ts';

export type Document = Static<typeof DocumentSchema>;

/** An upload as the HTTP layer hands it over: checked text fields and the file, already on disk in the temp folder. */
export interface DocumentUpload {
  fields: DocumentFields;
  fileName: string;
  file: ReceivedFile;
}

export function toDocument(row: DocumentsTable): Document {
  const doc: Document = {
    id: row.id,
    documentHolder: row.holder_id,
    documentType: row.document_type as Document['documentType'],
    country: row.country,
    fileName: row.file_name,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
  if (row.side !== null) doc.side = row.side;
  if (row.document_number !== null) doc.documentNumber = row.document_number;
  return doc;
}

export function scopedDocuments(db: Db | Tx, scope: Scope) {
  return db
    .selectFrom('documents')
    .where('documents.platform_id', '=', scope.platformId)
    .where('documents.environment', '=', scope.environment);
}

/** The file's format by its first bytes, and its size: both are checked before anything is written. */
function checkFile(file: ReceivedFile): DocumentContentType {
  if (file.truncated || file.sizeBytes > MAX_DOCUMENT_BYTES) {
    throw new AppError('PAYLOAD_TOO_LARGE', `file is larger than ${MAX_DOCUMENT_BYTES} bytes (10 MB)`, {
      field: 'file',
      limitBytes: MAX_DOCUMENT_BYTES,
    });
  }
  if (file.sizeBytes === 0) throw invalidInput('file', 'file is empty', 'required');
  const type = sniffContentType(file.head);
  if (!type)
    throw invalidInput('file', 'file must be a PDF, JPEG or PNG (recognised by its content, not its name)', 'fileType');
  return type;
}

/** A document a verification submitted for review is evidence: it can be neither replaced nor deleted (409). */
function refuseIfSubmitted(row: DocumentsTable): void {
  if (row.submitted_verification_id !== null) {
    throw conflict(
      'DOCUMENT_SUBMITTED',
      `Document ${row.id} was submitted for review in ${row.submitted_verification_id} and is kept as evidence`,
      { verificationId: row.submitted_verification_id },
    );
  }
}

async function load(trx: Db | Tx, scope: Scope, id: string): Promise<DocumentsTable> {
  const row = await scopedDocuments(trx, scope).selectAll().where('documents.id', '=', id).executeTakeFirst();
  if (!row) throw notFound('Document', id);
  return row;
}

/** The customer a holder stands for: itself, or a beneficial owner's business. Another tenant's id is 404. */
async function customerOfHolder(deps: DocumentDeps, trx: Tx, scope: Scope, holderId: string): Promise<string> {
  const { customers, owners } = deps;
  if (hasPrefix(holderId, 'Customer')) return (await customers.requireActive(trx, scope, holderId)).id;
  if (hasPrefix(holderId, 'BeneficialOwner')) return (await owners.load(trx, scope, holderId)).customer_id;
  throw notFound('Document holder', holderId);
}

/**
 * Locks the stored content's row (creating it when new) so that no concurrent delete removes the file
 * between our check and our commit. SQLite writers are serialized by `begin immediate` already.
 */
async function lockFile(deps: DocumentDeps, trx: Tx, sha256: string, sizeBytes: number, now: bigint): Promise<void> {
  const { ctx } = deps;
  const { store } = ctx;
  await trx
    .insertInto('document_files')
    .values({ sha256, size_bytes: BigInt(sizeBytes), created_at: now })
    .onConflict((oc) => oc.column('sha256').doNothing())
    .execute();
  if (store.engine === 'postgres')
    await trx.selectFrom('document_files').select('sha256').where('sha256', '=', sha256).forUpdate().execute();
}

/**
 * Drops a content no row references any more: its lock row and (last, just before commit) its file.
 * Called after the referencing row was deleted or repointed, inside the same transaction.
 */
async function releaseFile(deps: DocumentDeps, trx: Tx, sha256: string): Promise<void> {
  const { ctx, files } = deps;
  const { store } = ctx;
  if (store.engine === 'postgres')
    await trx.selectFrom('document_files').select('sha256').where('sha256', '=', sha256).forUpdate().execute();
  const stillUsed = await trx
    .selectFrom('documents')
    .select('id')
    .where('sha256', '=', sha256)
    .limit(1)
    .executeTakeFirst();
  if (stillUsed) return;
  await trx.deleteFrom('document_files').where('sha256', '=', sha256).execute();
  await files.remove(sha256);
}

/** The columns an upload sets, on create and on replace alike. */
function describedBy(upload: DocumentUpload, contentType: string) {
  const { fields, file } = upload;
  return {
    document_type: fields.documentType,
    country: fields.country,
    file_name: upload.fileName,
    side: fields.side ?? null,
    document_number: fields.documentNumber ?? null,
    sha256: file.sha256,
    size_bytes: BigInt(file.sizeBytes),
    content_type: contentType,
  } satisfies Partial<DocumentsTable>;
}

/**
 * Stores an upload: checks the file and the holder, writes the row and puts the file in place in one
 * transaction. Any failure leaves no row; the caller discards the temp file whatever happens.
 */
async function create(deps: DocumentDeps, scope: Scope, upload: DocumentUpload): Promise<Document> {
  const { ctx, files } = deps;
  const { store } = ctx;
  const contentType = checkFile(upload.file);
  const { fields, file } = upload;
  return store.tx(async (trx) => {
    const customerId = await customerOfHolder(deps, trx, scope, fields.documentHolder!);
    const now = BigInt(scopeNowMs(ctx, scope));
    await lockFile(deps, trx, file.sha256, file.sizeBytes, now);
    const row: DocumentsTable = {
      id: newId('Document'),
      platform_id: scope.platformId,
      environment: scope.environment,
      holder_id: fields.documentHolder!,
      customer_id: customerId,
      ...describedBy(upload, contentType),
      submitted_verification_id: null,
      created_at: now,
      updated_at: now,
    };
    await trx.insertInto('documents').values(row).execute();
    // Last step before commit: a row never exists without its file.
    await files.place(file);
    return toDocument(row);
  });
}

/**
 * Replaces the file and the descriptive fields; the holder stays. Optional fields not given are cleared: PUT
 * replaces.
 */
async function replace(deps: DocumentDeps, scope: Scope, id: string, upload: DocumentUpload): Promise<Document> {
  const { ctx, files } = deps;
  const { store } = ctx;
  const contentType = checkFile(upload.file);
  const { file } = upload;
  return store.tx(async (trx) => {
    const row = await load(trx, scope, id);
    refuseIfSubmitted(row);
    const now = BigInt(scopeNowMs(ctx, scope));
    await lockFile(deps, trx, file.sha256, file.sizeBytes, now);
    const changes = { ...describedBy(upload, contentType), updated_at: now } satisfies Partial<DocumentsTable>;
    await trx.updateTable('documents').set(changes).where('id', '=', row.id).execute();
    const updated: DocumentsTable = { ...row, ...changes };
    await files.place(file);
    if (row.sha256 !== file.sha256) await releaseFile(deps, trx, row.sha256);
    return toDocument(updated);
  });
}

async function get(deps: DocumentDeps, scope: Scope, id: string): Promise<Document> {
  const { ctx } = deps;
  const { store } = ctx;
  const { db } = store;
  return toDocument(await load(db, scope, id));
}

async function list(
  deps: DocumentDeps,
  scope: Scope,
  filters: { documentHolder?: string | undefined; customerId?: string | undefined },
  page: PageRequest,
): Promise<Page<Document>> {
  const { ctx } = deps;
  const { store } = ctx;
  const { db } = store;
  let q = scopedDocuments(db, scope);
  if (filters.documentHolder !== undefined) q = q.where('documents.holder_id', '=', filters.documentHolder);
  // The customer's own documents and its beneficial owners' (the dashboard's customer page).
  if (filters.customerId !== undefined) q = q.where('documents.customer_id', '=', filters.customerId);
  return mapPage(await keysetPage<DocumentsTable>(q, 'documents', page), toDocument);
}

/** Deletes the row, and the file when no other row has the same bytes. */
async function remove(deps: DocumentDeps, scope: Scope, id: string): Promise<void> {
  const { ctx } = deps;
  const { store } = ctx;
  await store.tx(async (trx) => {
    const row = await load(trx, scope, id);
    refuseIfSubmitted(row);
    const deleted = await trx
      .deleteFrom('documents')
      .where('id', '=', row.id)
      .where('submitted_verification_id', 'is', null)
      .executeTakeFirst();
    if (deleted.numDeletedRows !== 1n) throw notFound('Document', id);
    await releaseFile(deps, trx, row.sha256);
  });
}

/** The stored bytes and how to label them. */
/** A stored document's file, to stream as the download. */
export interface DocumentContent {
  stream: ReadStream;
  contentType: string;
  sizeBytes: number;
  sha256: string;
  fileName: string;
}

async function open(deps: DocumentDeps, scope: Scope, id: string): Promise<DocumentContent> {
  const { ctx, files } = deps;
  const { store } = ctx;
  const { db } = store;
  const row = await load(db, scope, id);
  return {
    stream: files.open(row.sha256),
    contentType: row.content_type,
    sizeBytes: Number(row.size_bytes),
    sha256: row.sha256,
    fileName: row.file_name,
  };
}

interface DocumentDeps {
  ctx: Ctx;
  files: DocumentFileStore;
  customers: Pick<CustomerService, 'requireActive'>;
  owners: Pick<BeneficialOwnerService, 'load'>;
}

export interface DocumentService {
  /**
   * Stores an uploaded document for a customer or beneficial owner. Raises INVALID_INPUT, PAYLOAD_TOO_LARGE,
   * REFERENCE_NOT_FOUND (the holder), USER_NOT_FOUND, CUSTOMER_DELETED.
   */
  create(scope: Scope, upload: DocumentUpload): Promise<Document>;
  /**
   * Replaces a document's file and fields. Raises REFERENCE_NOT_FOUND, DOCUMENT_SUBMITTED, INVALID_INPUT,
   * PAYLOAD_TOO_LARGE.
   */
  replace(scope: Scope, id: string, upload: DocumentUpload): Promise<Document>;
  /** One document. Raises REFERENCE_NOT_FOUND. */
  get(scope: Scope, id: string): Promise<Document>;
  /** A page of documents, by holder or customer. */
  list(
    scope: Scope,
    filters: { documentHolder?: string | undefined; customerId?: string | undefined },
    page: PageRequest,
  ): Promise<Page<Document>>;
  /** Deletes a document not yet submitted for review. Raises REFERENCE_NOT_FOUND, DOCUMENT_SUBMITTED. */
  remove(scope: Scope, id: string): Promise<void>;
  /** The document's file, to download. Raises REFERENCE_NOT_FOUND. */
  open(scope: Scope, id: string): Promise<DocumentContent>;
}

/** `customers` and `owners` check a document's holder. */
export function makeDocumentService(
  ctx: Ctx,
  files: DocumentFileStore,
  customers: Pick<CustomerService, 'requireActive'>,
  owners: Pick<BeneficialOwnerService, 'load'>,
): DocumentService {
  const deps: DocumentDeps = { ctx, files, customers, owners };
  return {
    create: bindDeps(deps, create),
    replace: bindDeps(deps, replace),
    get: bindDeps(deps, get),
    list: bindDeps(deps, list),
    remove: bindDeps(deps, remove),
    open: bindDeps(deps, open),
  };
}
