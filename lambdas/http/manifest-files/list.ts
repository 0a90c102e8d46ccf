import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { paginate } from '../kit/paginate';
import { listStoredFiles, withFileUrl } from '#services/manifest-files/manifest-files';
import { ManifestStorageList } from '#catalog/manifest-files';

/** The caller's account's stored files, newest first, each with a file_url signed for 60 minutes. */
export const handler = route(ManifestStorageList.schemas, async ({ query, principal }) => {
  const all = await listStoredFiles(principal, query.courier_code);
  const { page, meta } = paginate(all, query.page, query.per_page);
  return ok(await Promise.all(page.map(withFileUrl)), { extra: { meta } });
});
