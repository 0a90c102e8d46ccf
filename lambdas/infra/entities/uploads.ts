import { defineEntity, service } from './entity';

/**
 * A large file on its way straight to storage: declared first (type, size, checksum), uploaded
 * with a presigned POST, then completed into a document. Expires after a day if never completed.
 */
export interface PendingUpload {
  id: string;
  accountId: number;
  blobKey: string;
  documentType: 'awb' | 'manifest' | 'customs' | 'delivery' | 'other';
  fileName: string;
  fileSize: number;
  checksum: string;
  mimeType: string;
  manifestId?: string;
  awbNumber?: string;
  metadata?: Record<string, unknown>;
  createdAt: string;
  expiresAt: number;
}

const uploads = defineEntity({
  model: { entity: 'pendingUpload', version: '1', service },
  attributes: {
    id: { type: 'string', required: true },
    accountId: { type: 'number', required: true },
    blobKey: { type: 'string', required: true },
    documentType: { type: ['awb', 'manifest', 'customs', 'delivery', 'other'] as const, required: true },
    fileName: { type: 'string', required: true },
    fileSize: { type: 'number', required: true },
    checksum: { type: 'string', required: true },
    mimeType: { type: 'string', required: true },
    manifestId: { type: 'string' },
    awbNumber: { type: 'string' },
    metadata: { type: 'any' },
    createdAt: { type: 'string', required: true },
    expiresAt: { type: 'number', field: 'ttl', required: true },
  },
  indexes: {
    byId: {
      pk: { field: 'pk', composite: ['id'], template: 'UPLOAD#${id}' },
      sk: { field: 'sk', composite: [], template: 'UPLOAD' },
    },
  },
} as const);

export async function createUpload(upload: PendingUpload): Promise<void> {
  await uploads().create(upload as never).go();
}

export async function getUpload(id: string): Promise<PendingUpload | undefined> {
  const res = await uploads().get({ id }).go({ consistent: true });
  return (res.data ?? undefined) as PendingUpload | undefined;
}
