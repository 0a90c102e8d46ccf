import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { documentListView } from '#core/documents/views';
import { documentsVisibleTo } from '#services/documents/list';
import { paginate } from '../kit/paginate';
import { DocumentsList } from '#catalog/documents';

export const handler = route(DocumentsList.schemas, async ({ query, principal }) => {
  const all = await documentsVisibleTo(principal);
  const matching = all.filter(
    (d) =>
      (!query.manifest_id || d.manifestId === query.manifest_id) &&
      (!query.awb_number || d.awbNumber === query.awb_number) &&
      (!query.document_type || d.documentType === query.document_type) &&
      (!query.state || d.state === query.state),
  );
  const { page, meta } = paginate(matching, query.page, query.per_page);
  return ok(page.map(documentListView), { extra: { meta } });
});
