import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, pad, required, optional } from '../entity';

/**
 * Stored manifest files. Read by id, and listed per account newest first (gsi1) or per account
 * and carrier code newest first (gsi2), so the courier filter is a key, not a scan filter.
 */
export const manifestFiles = defineEntity({
  model: { entity: 'manifestFile', version: '1', service },
  attributes: {
    id: { type: 'number', required: true },
    idKey: { type: 'string', hidden: true, watch: ['id'], set: (_: unknown, { id }: { id: number }) => pad(id) },
    ...required({ accountId: 'number', courierCode: 'string', fileName: 'string', fileSize: 'number', mimeType: 'string' }),
    ...required({ checksum: 'string', blobKey: 'string', uploadedBy: 'number', uploadedAt: 'string' }),
    ...optional({ manifestName: 'string', description: 'string' }),
  },
  indexes: {
    byId: { pk: key('pk', 'MFILE#${id}'), sk: key('sk', 'MFILE') },
    byAccount: { index: 'gsi1', pk: key('gsi1pk', 'ACCOUNT#${accountId}#MFILES'), sk: key('gsi1sk', 'MFILE#${idKey}') },
    byCourier: { index: 'gsi2', pk: key('gsi2pk', 'ACCOUNT#${accountId}#MFILES#${courierCode}'), sk: key('gsi2sk', 'MFILE#${idKey}') },
  },
} as const);

/** An item of the entity as a read answers it. */
export type ManifestFileItem = EntityItem<ReturnType<typeof manifestFiles>>;
