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

export interface PendingDeliveriesUpload extends PendingUploadBase {
  purpose: 'deliveries';
  fileKind: 'csv' | 'zip';
}

export type UploadPurpose = 'document' | 'manifest-file' | 'deliveries';
type AnyPending = PendingUpload | PendingManifestFileUpload | PendingDeliveriesUpload;

export async function createUpload(upload: AnyPending): Promise<void> {
  await pendingUploads().create(upload).go();
}

/** The stored upload as its purpose's record; undefined for one that lacks what its purpose needs. */
function asPending(item: PendingUploadItem): AnyPending | undefined {
  if (item.purpose === 'deliveries') return item.fileKind === undefined ? undefined : { ...item, purpose: item.purpose, fileKind: item.fileKind };
  if (item.purpose === 'manifest-file') return item.courierCode === undefined ? undefined : { ...item, purpose: item.purpose, courierCode: item.courierCode };
  return item.documentType === undefined ? undefined : { ...item, purpose: item.purpose, documentType: item.documentType };
}

/** A pending upload of the given purpose (documents by default); another purpose's reads as missing. */
export async function getUpload(id: string): Promise<PendingUpload | undefined>;
export async function getUpload(id: string, purpose: 'document'): Promise<PendingUpload | undefined>;
export async function getUpload(id: string, purpose: 'manifest-file'): Promise<PendingManifestFileUpload | undefined>;
export async function getUpload(id: string, purpose: 'deliveries'): Promise<PendingDeliveriesUpload | undefined>;
export async function getUpload(id: string, purpose: UploadPurpose = 'document'): Promise<AnyPending | undefined> {
  const res = await pendingUploads().get({ id }).go({ consistent: true });
  const found = res.data ? asPending(res.data) : undefined;
  if (!found || (found.purpose ?? 'document') !== purpose) return undefined;
  return found;
}
