/** Transport documents: the types, states and transitions of spec 2.4 and 3.2, as data. */
export const documentTypes = ['awb', 'manifest', 'customs', 'delivery', 'other'] as const;
export type DocumentType = (typeof documentTypes)[number];

export const documentTypeLabels: Record<DocumentType, string> = {
  awb: 'Air Waybill',
  manifest: 'Manifest',
  customs: 'Customs',
  delivery: 'Delivery',
  other: 'Other',
};

export const documentStates = ['uploaded', 'validated', 'approved', 'rejected', 'superseded'] as const;
export type DocumentState = (typeof documentStates)[number];

export const documentStateLabels: Record<DocumentState, string> = {
  uploaded: 'Pending validation',
  validated: 'Pending approval',
  approved: 'Approved',
  rejected: 'Rejected',
  superseded: 'Superseded',
};

export type DocumentAction = 'validate' | 'approve' | 'reject' | 'supersede' | 'delete';

/**
 * From which states each action is allowed. Anything else is 409 with the current state,
 * except delete, which the spec answers with 403.
 */
export const allowedFrom: Record<DocumentAction, readonly DocumentState[]> = {
  validate: ['uploaded'],
  approve: ['validated'],
  reject: ['uploaded', 'validated'],
  supersede: ['uploaded', 'validated', 'approved', 'rejected'],
  delete: ['uploaded', 'rejected'],
};

export interface Actor {
  id: number;
  name: string;
  /** Absent when the token has none. */
  email?: string;
}

export interface DocumentRecord {
  id: number;
  accountId: number;
  /** Id of version 1; every version of one document shares it. */
  rootId: number;
  version: number;
  documentType: DocumentType;
  state: DocumentState;
  fileName: string;
  fileSize: number;
  mimeType: string;
  checksum: string;
  blobKey: string;
  manifestId?: string;
  awbNumber?: string;
  metadata?: Record<string, unknown>;
  uploader?: Actor;
  validator?: Actor;
  approver?: Actor;
  /** Who rejected it (issue 40; a document rejected before that has none). */
  rejecter?: Actor;
  validationNotes?: string;
  approvalNotes?: string;
  validatedAt?: string;
  approvedAt?: string;
  rejectionReason?: string;
  rejectedAt?: string;
  supersededBy?: number;
  supersedeReason?: string;
  supersededAt?: string;
  createdAt: string;
  updatedAt: string;
}
