import { CustomAttributeType, type EntityItem } from 'electrodb';
import { defineEntity, service, key, required, optional } from '../entity';

/**
 * A large file on its way straight to storage: declared first (type, size, checksum), uploaded
 * with a presigned POST, then completed into a record. Expires after a day if never completed.
 * `purpose` says what completing makes: a transport document (the default, and what uploads
 * saved before purposes existed are), a stored manifest file, or one of the two files of a day's
 * proofs of delivery (`deliveries`, read by the bulk import rather than completed one by one). An upload is only ever read back
 * for its own purpose, so one area's upload id cannot be completed through the other's route.
 */
export const pendingUploads = defineEntity({
  model: { entity: 'pendingUpload', version: '1', service },
  attributes: {
    id: { type: 'string', required: true },
    purpose: { type: ['document', 'manifest-file', 'deliveries'] as const, default: 'document' },
    ...required({ accountId: 'number', blobKey: 'string', fileName: 'string', fileSize: 'number', checksum: 'string' }),
    ...required({ mimeType: 'string' }),
    // purpose document
    ...optional({ documentType: ['awb', 'manifest', 'customs', 'delivery', 'other'], manifestId: 'string', awbNumber: 'string' }),
    metadata: { type: CustomAttributeType<Record<string, unknown>>('any') },
    // purpose manifest-file
    ...required({ createdAt: 'string' }),
    ...optional({ courierCode: 'string', manifestName: 'string', description: 'string' }),
    // purpose deliveries (issue 44): a day's CSV or its ZIP of proofs
    ...optional({ fileKind: ['csv', 'zip'] }),
    expiresAt: { type: 'number', field: 'ttl', required: true },
  },
  indexes: {
    byId: { pk: key('pk', 'UPLOAD#${id}'), sk: key('sk', 'UPLOAD') },
  },
} as const);

/** An item of the entity as a read answers it. */
export type PendingUploadItem = EntityItem<ReturnType<typeof pendingUploads>>;
