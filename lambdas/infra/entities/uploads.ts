import { defineEntity, service, key, required, optional } from './entity';

/**
 * A large file on its way straight to storage: declared first (type, size, checksum), uploaded
 * with a presigned POST, then completed into a record. Expires after a day if never completed.
 * `purpose` says what completing makes: a transport document (the default, and what uploads
 * saved before purposes existed are) or a stored manifest file. An upload is only ever read back
 * for its own purpose, so one area's upload id cannot be completed through the other's route.
 */
interface PendingUploadBase {
  id: string;
  accountId: number;
  blobKey: string;
  fileName: string;
  fileSize: number;
  checksum: string;
  mimeType: string;
  createdAt: string;
  expiresAt: number;
}

export interface PendingUpload extends PendingUploadBase {
  purpose?: 'document';
  documentType: 'awb' | 'manifest' | 'customs' | 'delivery' | 'other';
  manifestId?: string;
  awbNumber?: string;
  metadata?: Record<string, unknown>;
}

export interface PendingManifestFileUpload extends PendingUploadBase {
  purpose: 'manifest-file';
  courierCode: string;
  manifestName?: string;
  description?: string;
}

export type UploadPurpose = 'document' | 'manifest-file';

const uploads = defineEntity({
  model: { entity: 'pendingUpload', version: '1', service },
  attributes: {
    id: { type: 'string', required: true },
    purpose: { type: ['document', 'manifest-file'] as const, default: 'document' },
    ...required({ accountId: 'number', blobKey: 'string', fileName: 'string', fileSize: 'number', checksum: 'string' }),
    ...required({ mimeType: 'string' }),
    // purpose document
    ...optional({ documentType: ['awb', 'manifest', 'customs', 'delivery', 'other'], manifestId: 'string', awbNumber: 'string' }),
    ...optional({ metadata: 'any' }),
    // purpose manifest-file
    ...required({ createdAt: 'string' }),
    ...optional({ courierCode: 'string', manifestName: 'string', description: 'string' }),
    expiresAt: { type: 'number', field: 'ttl', required: true },
  },
  indexes: {
    byId: { pk: key('pk', 'UPLOAD#${id}'), sk: key('sk', 'UPLOAD') },
  },
} as const);

export async function createUpload(upload: PendingUpload | PendingManifestFileUpload): Promise<void> {
  await uploads().create(upload as never).go();
}

/** A pending upload of the given purpose (documents by default); another purpose's reads as missing. */
export async function getUpload(id: string): Promise<PendingUpload | undefined>;
export async function getUpload(id: string, purpose: 'document'): Promise<PendingUpload | undefined>;
export async function getUpload(id: string, purpose: 'manifest-file'): Promise<PendingManifestFileUpload | undefined>;
export async function getUpload(id: string, purpose: UploadPurpose = 'document'): Promise<PendingUpload | PendingManifestFileUpload | undefined> {
  const res = await uploads().get({ id }).go({ consistent: true });
  const found = res.data as (PendingUpload | PendingManifestFileUpload) | null;
  if (!found || (found.purpose ?? 'document') !== purpose) return undefined;
  return found;
}
