import { defineEntity, pad, service, key, required, optional } from './entity';
import type { ManifestFileRecord } from '../../core/manifest-files/model';

/**
 * Stored manifest files. Read by id, and listed per account newest first (gsi1) or per account
 * and carrier code newest first (gsi2), so the courier filter is a key, not a scan filter.
 */
const manifestFiles = defineEntity({
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

export async function putManifestFile(record: ManifestFileRecord): Promise<void> {
  await manifestFiles().create(record as never).go();
}

export async function getManifestFile(id: number): Promise<ManifestFileRecord | undefined> {
  const res = await manifestFiles().get({ id }).go({ consistent: true });
  return (res.data ?? undefined) as ManifestFileRecord | undefined;
}

/** One account's stored files, newest first; only those of one (upper-case) carrier code when given. */
export async function listManifestFiles(accountId: number, courierCode?: string): Promise<ManifestFileRecord[]> {
  const query = courierCode === undefined ? manifestFiles().query.byAccount({ accountId }) : manifestFiles().query.byCourier({ accountId, courierCode });
  const res = await query.go({ pages: 'all', order: 'desc' });
  return res.data as ManifestFileRecord[];
}
