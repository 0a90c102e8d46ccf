import { CustomAttributeType, type EntityItem } from 'electrodb';
import { defineEntity, service, key, required, optional } from '../entity';

export const pendingUploads = defineEntity({
  model: { entity: 'pendingUpload', version: '1', service },
  attributes: {
    id: { type: 'string', required: true },
    purpose: { type: ['document', 'manifest-file'] as const, default: 'document' },
    ...required({ accountId: 'number', blobKey: 'string', fileName: 'string', fileSize: 'number', checksum: 'string' }),
    ...required({ mimeType: 'string' }),
    // purpose document
    ...optional({ documentType: ['awb', 'manifest', 'customs', 'delivery', 'other'], manifestId: 'string', awbNumber: 'string' }),
    metadata: { type: CustomAttributeType<Record<string, unknown>>('any') },
    // purpose manifest-file
    ...required({ createdAt: 'string' }),
    ...optional({ courierCode: 'string', manifestName: 'string', description: 'string' }),
    expiresAt: { type: 'number', field: 'ttl', required: true },
  },
  indexes: {
    byId: { pk: key('pk', 'UPLOAD#${id}'), sk: key('sk', 'UPLOAD') },
  },
} as const);

/** An item of the entity as a read answers it. */
export type PendingUploadItem = EntityItem<ReturnType<typeof pendingUploads>>;
