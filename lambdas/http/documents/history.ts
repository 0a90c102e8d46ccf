import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { versionsOf } from '#services/documents/list';
import { DocumentsHistory } from '#catalog/documents';

/** The newest version is current; every earlier one is listed (newest first) and stays downloadable. */
export const handler = route(DocumentsHistory.schemas, async ({ params, principal }) => {
  const versions = await versionsOf(principal, params.id);
  const current = versions[versions.length - 1];
  const earlier = versions.slice(0, -1).reverse();
  return ok({
    current: { id: current.id, version: current.version, state: current.state, created_at: current.createdAt },
    history: earlier.map((d) => ({
      id: d.id,
      version: d.version,
      state: d.state,
      superseded_by: d.supersededBy ?? null,
      supersede_reason: d.supersedeReason ?? null,
      created_at: d.createdAt,
      superseded_at: d.supersededAt ?? null,
    })),
    total_versions: versions.length,
  });
});
