/**
 * Transport-document use cases: they join the rules of core/documents with the table, the blob
 * store and the bus. Handlers call these; nothing here knows about HTTP.
 */
import { randomUUID } from 'node:crypto';
import type { Principal } from '#core/auth/principal';
import { Conflict, Forbidden, NotFound, PayloadTooLarge, ValidationFailed } from '#core/errors';
import { allowedFrom, documentStateLabels, nextStepFor, type Actor, type DocumentAction, type DocumentRecord, type DocumentType } from '#core/documents/model';
import { documentEventData } from '#core/documents/views';
import { extensionOf, inspectFile, isDocumentExtension, maxDocumentBytes, mimeTypeForExtension, sanitizeFileName, sha256Checksum } from '#core/documents/files';
import { getUpload } from '#infra/entities/uploads';
import { nextId } from '#infra/entities/counters';
import { once as runOnce } from '../idempotency';
import { receivedFile, startPresignedUpload } from '../presigned-upload';
import { deleteDocument, getDocument, putDocument, supersedeWith, transition } from '#infra/entities/documents';
import { blobs } from '#infra/blobs';
import { publishEvents } from '../publish';
import { findDocument } from './list';

/** The document lookup lives beside the list (its bundle stays free of S3); re-exported for the routes that change documents. */
export { findDocument };
import { now } from '#infra/clock';
import { recordMetric } from '#shared/metrics';

export interface IncomingFile {
  fileName: string;
  bytes: Buffer;
}

export interface DocumentFields {
  documentType: DocumentType;
  manifestId?: string;
  awbNumber?: string;
  metadata?: Record<string, unknown>;
}

export function actorOf(p: Principal): Actor {
  return p.email ? { id: p.tokenId, name: p.tokenName, email: p.email } : { id: p.tokenId, name: p.tokenName };
}


/** Only the owning account (or the operator) may change a document's file or remove it. */
function assertOwner(principal: Principal, doc: DocumentRecord) {
  if (principal.role !== 'admin' && principal.accountId !== doc.accountId) {
    throw new Forbidden("Only the account that uploaded a document may supersede or delete it.");
  }
}

/** A document's event, after its write landed (see `publishEvents`). */
/** Publishes a document's event; every state a document enters has one, so the transitions are counted here. */
async function publish(type: string, doc: DocumentRecord, extra?: Record<string, unknown>) {
  recordMetric('DocumentTransitions', 1, { by: type.replace(/^document\./, '') });
  await publishEvents(doc.accountId, [{ type, data: documentEventData(doc, extra) }]);
}

function checkedFile(file: IncomingFile): { fileName: string; mimeType: string; extension: string; checksum: string } {
  const fileName = sanitizeFileName(file.fileName);
  const inspected = inspectFile(fileName, file.bytes);
  if (!inspected.ok) throw new ValidationFailed({ [inspected.field]: [inspected.message] });
  return { fileName, mimeType: inspected.mimeType, extension: inspected.extension, checksum: sha256Checksum(file.bytes) };
}

/**
 * Runs `work` once per idempotency key (see services/idempotency): the same key with the same request
 * replays the first document, with another request -> 409. Without a key the work simply runs.
 */
async function once(
  principal: Principal,
  scope: string,
  key: string | undefined,
  request: unknown,
  work: () => Promise<DocumentRecord>,
): Promise<{ doc: DocumentRecord; replayed: boolean }> {
  const { result: doc, replayed } = await runOnce(principal, scope, key, request, work, {
    noun: 'document',
    idOf: (d) => String(d.id),
    load: (id) => getDocument(Number(id)),
  });
  return { doc, replayed };
}

function newRecord(
  principal: Principal,
  fields: DocumentFields,
  file: { fileName: string; mimeType: string; checksum: string; size: number },
  ids: { id: number; rootId: number; version: number; accountId: number },
  blobKey: string,
  at: string,
): DocumentRecord {
  return {
    ...ids,
    documentType: fields.documentType,
    state: 'uploaded',
    fileName: file.fileName,
    fileSize: file.size,
    mimeType: file.mimeType,
    checksum: file.checksum,
    blobKey,
    manifestId: fields.manifestId,
    awbNumber: fields.awbNumber,
    metadata: fields.metadata,
    uploader: actorOf(principal),
    createdAt: at,
    updatedAt: at,
  };
}

export function blobKeyFor(accountId: number, extension: string): string {
  return `documents/${accountId}/${randomUUID()}.${extension}`;
}

/** Upload: check the file, store it under a key the service chooses, record version 1. */
export async function uploadDocument(principal: Principal, fields: DocumentFields, file: IncomingFile, idempotencyKey?: string) {
  const checked = checkedFile(file);
  return once(principal, 'documents.upload', idempotencyKey, { fields, file: checked }, async () => {
    const blobKey = blobKeyFor(principal.accountId, checked.extension);
    await blobs().put(blobKey, file.bytes, checked.mimeType);
    try {
      const id = await nextId('document');
      const record = newRecord(principal, fields, { ...checked, size: file.bytes.length }, { id, rootId: id, version: 1, accountId: principal.accountId }, blobKey, now().toISOString());
      await putDocument(record);
      await publish('document.uploaded', record);
      return record;
    } catch (err) {
      await blobs().delete(blobKey).catch(() => undefined);
      throw err;
    }
  });
}

export { uploadUrlSeconds } from '../presigned-upload';

/** Large files, step 1: declare the file, get a presigned POST for it (services/presigned-upload). */
export async function startUpload(
  principal: Principal,
  fields: DocumentFields,
  declared: { fileName: string; fileSize: number; checksum: string },
) {
  const fileName = sanitizeFileName(declared.fileName);
  const extension = extensionOf(fileName);
  if (!isDocumentExtension(extension)) throw new ValidationFailed({ filename: ['Allowed types: pdf, jpg, jpeg, png, xlsx, xls.'] });
  if (declared.fileSize > maxDocumentBytes) throw new PayloadTooLarge('The file is larger than 10 MB.');
  return startPresignedUpload({
    accountId: principal.accountId,
    blobKey: blobKeyFor(principal.accountId, extension),
    documentType: fields.documentType,
    fileName,
    fileSize: declared.fileSize,
    checksum: declared.checksum,
    mimeType: mimeTypeForExtension(extension),
    manifestId: fields.manifestId,
    awbNumber: fields.awbNumber,
    metadata: fields.metadata,
  });
}

/**
 * Large files, step 2: check what arrived and register it as the same document record the direct
 * upload makes. Completing twice returns the same document.
 */
export async function completeUpload(principal: Principal, uploadId: string) {
  const upload = await getUpload(uploadId);
  if (!upload || upload.accountId !== principal.accountId) throw new NotFound('Upload not found.');
  return once(principal, 'documents.complete', uploadId, { uploadId }, async () => {
    const file = await receivedFile(upload, inspectFile);
    const id = await nextId('document');
    const record = newRecord(
      principal,
      { documentType: upload.documentType, manifestId: upload.manifestId, awbNumber: upload.awbNumber, metadata: upload.metadata },
      { fileName: upload.fileName, mimeType: file.mimeType, checksum: file.checksum, size: file.bytes.length },
      { id, rootId: id, version: 1, accountId: principal.accountId },
      upload.blobKey,
      now().toISOString(),
    );
    await putDocument(record);
    await publish('document.uploaded', record);
    return record;
  });
}

function notAllowed(action: DocumentAction, doc: DocumentRecord): never {
  const state = `${doc.state} (${documentStateLabels[doc.state]})`;
  if (action === 'delete') throw new Forbidden(`A document can be deleted only while uploaded or rejected; this one is ${state}.`);
  const next = nextStepFor(action, doc.state, doc.id);
  throw new Conflict(`Cannot ${action} a document that is ${state}.${next ? ` ${next}` : ''}`);
}

/** Re-reads after a lost race so the 409 names the state that won. */
async function lostRace(action: DocumentAction, id: number): Promise<never> {
  const current = await getDocument(id);
  if (!current) throw new NotFound('Document not found.');
  notAllowed(action, current);
}

type Review = { action: 'validate'; notes?: string } | { action: 'approve'; notes?: string } | { action: 'reject'; reason: string };

/** Validate, approve or reject: one conditional write from the state that was read. */
export async function reviewDocument(principal: Principal, id: number, review: Review): Promise<DocumentRecord> {
  const doc = await findDocument(principal, id);
  if (!allowedFrom[review.action].includes(doc.state)) notAllowed(review.action, doc);
  const at = now().toISOString();
  const actor = actorOf(principal);
  const patch =
    review.action === 'validate'
      ? { state: 'validated' as const, validator: actor, validationNotes: review.notes, validatedAt: at, updatedAt: at }
      : review.action === 'approve'
        ? { state: 'approved' as const, approver: actor, approvalNotes: review.notes, approvedAt: at, updatedAt: at }
        : { state: 'rejected' as const, rejecter: actor, rejectionReason: review.reason, rejectedAt: at, updatedAt: at };
  const updated = await transition(id, doc.state, patch);
  if (!updated) return lostRace(review.action, id);
  const type = { validate: 'document.validated', approve: 'document.approved', reject: 'document.rejected' }[review.action];
  const extra =
    review.action === 'reject' ? { rejection_reason: review.reason } : review.action === 'validate' ? { validation_notes: review.notes ?? null } : {};
  await publish(type, updated, extra);
  return updated;
}

/** Supersede: a new version (old + 1) in `uploaded`, the original superseded, in one transaction. */
export async function supersedeDocument(principal: Principal, id: number, file: IncomingFile, reason: string | undefined, idempotencyKey?: string) {
  const checked = checkedFile(file);
  return once(principal, `documents.supersede.${id}`, idempotencyKey, { id, reason, file: checked }, async () => {
    const original = await findDocument(principal, id);
    assertOwner(principal, original);
    if (!allowedFrom.supersede.includes(original.state)) notAllowed('supersede', original);
    const blobKey = blobKeyFor(original.accountId, checked.extension);
    await blobs().put(blobKey, file.bytes, checked.mimeType);
    try {
      const newId = await nextId('document');
      const at = now().toISOString();
      const next = newRecord(
        principal,
        { documentType: original.documentType, manifestId: original.manifestId, awbNumber: original.awbNumber, metadata: original.metadata },
        { ...checked, size: file.bytes.length },
        { id: newId, rootId: original.rootId, version: original.version + 1, accountId: original.accountId },
        blobKey,
        at,
      );
      const patch = { state: 'superseded' as const, supersededBy: newId, supersedeReason: reason, supersededAt: at, updatedAt: at };
      if (!(await supersedeWith(original, original.state, patch, next))) {
        await blobs().delete(blobKey).catch(() => undefined);
        return lostRace('supersede', id);
      }
      const superseded = { ...original, ...patch };
      await publish('document.superseded', superseded, { superseded_by: newId, new_version: next.version, supersede_reason: reason ?? null });
      await publish('document.uploaded', next, { supersedes: original.id });
      return next;
    } catch (err) {
      await blobs().delete(blobKey).catch(() => undefined);
      throw err;
    }
  });
}

/** Delete: only while uploaded or rejected (else 403), and the stored file goes with the record. */
export async function removeDocument(principal: Principal, id: number): Promise<void> {
  const doc = await findDocument(principal, id);
  assertOwner(principal, doc);
  if (!allowedFrom.delete.includes(doc.state)) notAllowed('delete', doc);
  if (!(await deleteDocument(id, doc.state))) return lostRace('delete', id);
  recordMetric('DocumentTransitions', 1, { by: 'deleted' });
  await blobs().delete(doc.blobKey);
}

export const downloadMinutes = 60;

/** A signed URL that expires in 60 minutes; every version stays downloadable. */
export async function downloadDocument(principal: Principal, id: number) {
  const doc = await findDocument(principal, id);
  const url = await blobs().downloadUrl(doc.blobKey, { expiresInSeconds: downloadMinutes * 60, fileName: doc.fileName, contentType: doc.mimeType });
  await publish('document.downloaded', doc, { downloaded_by: { account_id: principal.accountId, token_id: principal.tokenId } });
  return { doc, url };
}
