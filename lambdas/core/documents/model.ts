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

/**
 * What to do instead, for an action refused in a state (said in the 409 after the state): the
 * workflow's next step, with its path. Absent where the state alone says it.
 */
export function nextStepFor(action: DocumentAction, state: DocumentState, id: number): string | undefined {
  const path = (a: 'validate' | 'approve' | 'reject' | 'supersede') => `${a === 'supersede' ? 'POST' : 'PUT'} /api/v1/transport/documents/${id}/${a}`;
  if (action === 'approve' && state === 'uploaded') return `Validate it first (${path('validate')}), then approve it.`;
  if (action === 'validate' && state === 'validated') return `It is already validated: approve it (${path('approve')}) or reject it (${path('reject')}).`;
  if ((action === 'validate' || action === 'approve' || action === 'reject') && ['approved', 'rejected', 'superseded'].includes(state)) {
    return state === 'superseded'
      ? 'A newer version replaced it: act on the newest version (GET /api/v1/transport/documents/' + id + '/history lists them).'
      : `Its review is final: to change the file, send a new version (${path('supersede')}).`;
  }
  return undefined;
}

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
