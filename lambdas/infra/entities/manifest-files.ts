import { manifestFiles } from './manifest-files/manifest-file';
import type { ManifestFileRecord } from '#core/manifest-files/model';

export async function putManifestFile(record: ManifestFileRecord): Promise<void> {
  await manifestFiles().create(record).go();
}

export async function getManifestFile(id: number): Promise<ManifestFileRecord | undefined> {
  const res = await manifestFiles().get({ id }).go({ consistent: true });
  return res.data ?? undefined;
}

/** One account's stored files, newest first; only those of one (upper-case) carrier code when given. */
export async function listManifestFiles(accountId: number, courierCode?: string): Promise<ManifestFileRecord[]> {
  const query = courierCode === undefined ? manifestFiles().query.byAccount({ accountId }) : manifestFiles().query.byCourier({ accountId, courierCode });
  const res = await query.go({ pages: 'all', order: 'desc' });
  return res.data;
}
