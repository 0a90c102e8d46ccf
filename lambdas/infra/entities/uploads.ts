import { pendingUploads, type PendingUploadItem } from './uploads/pending-upload';

/** What every pending upload holds, whatever its purpose. */
type PendingUploadBase = Pick<PendingUploadItem, 'id' | 'accountId' | 'blobKey' | 'fileName' | 'fileSize' | 'checksum' | 'mimeType' | 'createdAt' | 'expiresAt'>;

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

export async function createUpload(upload: PendingUpload | PendingManifestFileUpload): Promise<void> {
  await pendingUploads().create(upload).go();
}

/** The stored upload as its purpose's record; undefined for one that lacks what its purpose needs. */
function asPending(item: PendingUploadItem): PendingUpload | PendingManifestFileUpload | undefined {
  if (item.purpose === 'manifest-file') return item.courierCode === undefined ? undefined : { ...item, purpose: item.purpose, courierCode: item.courierCode };
  return item.documentType === undefined ? undefined : { ...item, purpose: item.purpose, documentType: item.documentType };
}

/** A pending upload of the given purpose (documents by default); another purpose's reads as missing. */
export async function getUpload(id: string): Promise<PendingUpload | undefined>;
export async function getUpload(id: string, purpose: 'document'): Promise<PendingUpload | undefined>;
export async function getUpload(id: string, purpose: 'manifest-file'): Promise<PendingManifestFileUpload | undefined>;
export async function getUpload(id: string, purpose: UploadPurpose = 'document'): Promise<PendingUpload | PendingManifestFileUpload | undefined> {
  const res = await pendingUploads().get({ id }).go({ consistent: true });
  const found = res.data ? asPending(res.data) : undefined;
  if (!found || (found.purpose ?? 'document') !== purpose) return undefined;
  return found;
}
