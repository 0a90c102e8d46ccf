import type { Actor, DocumentRecord } from './model';
import { documentStateLabels, documentTypeLabels } from './model';
import { humanSize } from './files';

const actorView = (a: Actor | undefined) => (a ? { id: a.id, name: a.name, email: a.email ?? null } : null);

/** The record of spec 2.4 (upload and action responses). */
export function documentView(d: DocumentRecord) {
  return {
    id: d.id,
    manifest_id: d.manifestId ?? null,
    awb_number: d.awbNumber ?? null,
    document_type: d.documentType,
    document_type_label: documentTypeLabels[d.documentType],
    file_name: d.fileName,
    file_size: d.fileSize,
    file_size_human: humanSize(d.fileSize),
    mime_type: d.mimeType,
    checksum: d.checksum,
    state: d.state,
    state_label: documentStateLabels[d.state],
    version: d.version,
    metadata: d.metadata ?? {},
    created_at: d.createdAt,
    updated_at: d.updatedAt,
  };
}

/** List entries leave out checksum and metadata (spec 4.2). */
export function documentListView(d: DocumentRecord) {
  const { checksum: _c, metadata: _m, ...rest } = documentView(d);
  return rest;
}

/** The detail form: who uploaded, validated, approved or rejected, with the notes and the reason, and every workflow fact. */
export function documentDetailView(d: DocumentRecord) {
  return {
    ...documentView(d),
    uploader: actorView(d.uploader),
    validator: actorView(d.validator),
    approver: actorView(d.approver),
    rejecter: actorView(d.rejecter),
    validation_notes: d.validationNotes ?? null,
    approval_notes: d.approvalNotes ?? null,
    validated_at: d.validatedAt ?? null,
    approved_at: d.approvedAt ?? null,
    rejection_reason: d.rejectionReason ?? null,
    rejected_at: d.rejectedAt ?? null,
    superseded_by: d.supersededBy ?? null,
    supersede_reason: d.supersedeReason ?? null,
    superseded_at: d.supersededAt ?? null,
  };
}

/** The `data` of every document.* event (docs/partners/documents.md lists the extras each event adds). */
export function documentEventData(d: DocumentRecord, extra: Record<string, unknown> = {}) {
  return {
    id: d.id,
    account_id: d.accountId,
    document_type: d.documentType,
    state: d.state,
    version: d.version,
    file_name: d.fileName,
    manifest_id: d.manifestId ?? null,
    awb_number: d.awbNumber ?? null,
    ...extra,
  };
}
