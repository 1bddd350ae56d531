import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { created, type Http } from '../http.ts';
import type { Services } from '../../services/index.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { present } from '../../domain/assert.ts';
import { findUnstorableText } from '../../domain/text.ts';
import { cleanFileName, MAX_DOCUMENT_BYTES, parseDocumentFields, SNIFF_BYTES } from '../../domain/documents.ts';
import type { DocumentFileStore, ReceivedFile } from '../../store/document-files.ts';
import type { DocumentUpload } from '../../services/documents.ts';
import { Document, DocumentFile, DocumentListQuery } from '../../wire/documents.ts';
import { errors, IdParam, Paginated } from '../../wire/common.ts';
import { pageOf } from './paging.ts';

/** Bounds on the text parts of an upload: a handful of short fields, one file. */
const LIMITS = { fileSize: MAX_DOCUMENT_BYTES, files: 1, fields: 10, fieldSize: 1024, parts: 12, headerPairs: 100 };

/**
 * Reads a multipart upload as it streams: text fields into a record, the one `file` part to a temp file
 * (hashed on the way, never held in memory). The whole body is always consumed, so a refusal reaches the
 * client as an answer rather than a reset connection. On any failure the temp file is removed here; on
 * success the caller owns it and must discard it.
 */
async function readUpload(
  req: FastifyRequest,
  files: DocumentFileStore,
  mode: 'upload' | 'replace',
): Promise<DocumentUpload> {
  if (!req.isMultipart())
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the document as multipart/form-data', { field: 'body' });
  const raw: Record<string, string> = {};
  let received: (ReceivedFile & { fileName: string }) | undefined;
  let refusal: AppError | undefined;
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || received) {
          refusal ??= invalidInput(
            part.fieldname,
            `${part.fieldname} is not a file field of this request; send one file as "file"`,
            'unknownField',
          );
          part.file.resume();
          continue;
        }
        received = { ...(await files.receive(part.file, SNIFF_BYTES)), fileName: cleanFileName(part.filename) };
      } else {
        const unstorable = findUnstorableText({ [part.fieldname]: String(part.value) });
        if (unstorable)
          refusal ??= invalidInput(unstorable.field, `${unstorable.field} ${unstorable.reason}`, 'storableText');
        if (part.fieldname in raw)
          refusal ??= invalidInput(part.fieldname, `${part.fieldname} is given twice`, 'duplicate');
        if (part.valueTruncated) refusal ??= invalidInput(part.fieldname, `${part.fieldname} is too long`, 'maxLength');
        raw[part.fieldname] = String(part.value);
      }
    }
    if (refusal) throw refusal;
    if (!received) throw invalidInput('file', 'file is required (a PDF, JPEG or PNG part named "file")', 'required');
    const fields = parseDocumentFields(raw, mode);
    const { fileName, ...file } = received;
    return { fields, fileName, file };
  } catch (err) {
    if (received) await files.discard(received.tempPath);
    throw malformedUpload(err) ?? err;
  }
}

/**
 * A body the multipart parser could not read (no boundary, a part cut short, a bad part header) is the
 * client's fault: a 400 in the error shape. Our own refusals, @fastify/multipart's limit errors (which
 * carry their 4xx status) and failures of the machine (a disk error has a syscall) keep their own answer.
 */
function malformedUpload(err: unknown): AppError | undefined {
  if (!(err instanceof Error) || err instanceof AppError) return undefined;
  if ('syscall' in err || (err as { statusCode?: number }).statusCode !== undefined) return undefined;
  return new AppError('INVALID_INPUT', `The multipart body cannot be read: ${err.message}`, {
    field: 'body',
    rule: 'multipart',
  });
}

const DOCS = {
  upload: {
    summary:
      'Upload a document (multipart/form-data: file, documentType, country, documentHolder, side, documentNumber)',
    description:
      'A PDF, JPEG or PNG for a customer or beneficial owner (documentHolder), checked by its content, not its ' +
      'name. The file streams to storage; too large is a 413.',
  },
  replace: {
    summary: 'Replace a document file and its fields (multipart/form-data, as upload without documentHolder)',
    description: 'Not once a verification submitted the document (409).',
  },
  list: {
    summary: 'List documents (oldest first)',
    description: 'Filter by documentHolder; pages with limit and cursor.',
  },
  get: {
    summary: 'Get a document',
    description: "One document's fields; the file itself is at /documents/{documentId}/file.",
  },
  file: {
    summary: 'Download the stored file',
    description: 'The bytes as uploaded, with their content type, length and an ETag of their SHA-256.',
  },
  remove: {
    summary: 'Delete a document (not once a verification submitted it)',
    description: 'Removes the document and its file; answers 204.',
  },
};

declare module 'fastify' {
  interface FastifyRequest {
    /** A document upload, read in full (the file in a temp file) before the handler and its transaction. */
    upload?: DocumentUpload;
  }
}

const tags = ['Documents'];
const params = IdParam('documentId', 'Document');

/**
 * The two routes that take multipart/form-data, in a scope of their own: every other route keeps
 * accepting JSON alone. Each reads its upload before the handler (see readFirst).
 */
function uploadRoutes(api: Http, { documents, documentFiles }: Services): void {
  /**
   * Reads the upload before the handler, so the handler (and the idempotency rule's database transaction
   * around it) never waits on the network. What identifies the request for Idempotency-Key is its fields
   * and the file's hash, put where a JSON route has its body.
   */
  const readFirst = (mode: 'upload' | 'replace') => async (req: FastifyRequest) => {
    const upload = await readUpload(req, documentFiles, mode);
    req.upload = upload;
    req.body = { ...upload.fields, fileName: upload.fileName, sha256: upload.file.sha256 };
  };
  const uploadOf = (req: FastifyRequest) => present(req.upload, 'an upload route reads its upload first');

  api.register(async (scoped) => {
    await scoped.register(multipart, { limits: LIMITS, throwFileSizeLimit: false });
    // The temp file goes whatever the outcome (stored, refused, or a replay that never used it), before the
    // answer leaves: a client that gets its answer finds nothing left behind.
    scoped.addHook('onSend', async (req, _reply, payload) => {
      if (req.upload) await documentFiles.discard(req.upload.file.tempPath);
      return payload;
    });
    const http = scoped as unknown as Http;
    http.post('/documents', {
      config: { permission: 'MANAGE', idempotent: true },
      preHandler: readFirst('upload'),
      schema: {
        tags,
        ...DOCS.upload,
        consumes: ['multipart/form-data'],
        response: { 201: Document, ...errors(400, 401, 403, 404, 410, 413, 415) },
      },
      handler: async (req, reply) => created(reply, await documents.create(req.principal, uploadOf(req))),
    });
    http.put('/documents/:documentId', {
      config: { permission: 'MANAGE' },
      preHandler: readFirst('replace'),
      schema: {
        tags,
        ...DOCS.replace,
        consumes: ['multipart/form-data'],
        params,
        response: { 200: Document, ...errors(400, 401, 403, 404, 409, 413, 415) },
      },
      handler: async (req) => documents.replace(req.principal, req.params.documentId, uploadOf(req)),
    });
  });
}

/** The media types a document file is served as (uploads are checked by their bytes to be one of them). */
const FILE_TYPES = ['application/pdf', 'image/jpeg', 'image/png'];

export function documentRoutes(api: Http, services: Services): void {
  const { documents } = services;
  uploadRoutes(api, services);

  api.get('/documents', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      ...DOCS.list,
      querystring: DocumentListQuery,
      response: { 200: Paginated(Document), ...errors(400, 401, 403) },
    },
    handler: async (req) =>
      documents.list(req.principal, { documentHolder: req.query.documentHolder }, pageOf(req.query, 'asc')),
  });
  api.get('/documents/:documentId', {
    config: { permission: 'VIEW' },
    schema: { tags, ...DOCS.get, params, response: { 200: Document, ...errors(401, 403, 404) } },
    handler: async (req) => documents.get(req.principal, req.params.documentId),
  });
  api.get('/documents/:documentId/file', {
    config: { permission: 'VIEW' },
    schema: {
      tags,
      ...DOCS.file,
      params,
      // The file's media types are the 200's alone: `produces` would give them to the error answers too,
      // which are JSON like every other (a contract defect contract check mode found).
      response: {
        200: {
          description: 'The file, as uploaded',
          content: Object.fromEntries(FILE_TYPES.map((type) => [type, { schema: DocumentFile }])),
        },
        ...errors(401, 403, 404),
      },
    },
    handler: async (req, reply) => {
      const file = await documents.open(req.principal, req.params.documentId);
      return reply
        .type(file.contentType)
        .header('content-length', file.sizeBytes)
        .header('etag', `"${file.sha256}"`)
        .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.fileName)}`)
        .send(file.stream);
    },
  });
  api.delete('/documents/:documentId', {
    config: { permission: 'MANAGE' },
    schema: {
      tags,
      ...DOCS.remove,
      params,
      response: { 204: Type.Null(), ...errors(401, 403, 404, 409) },
    },
    handler: async (req, reply) => {
      await documents.remove(req.principal, req.params.documentId);
      return reply.status(204).send(null);
    },
  });
}
