import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { documentListView } from '#core/documents/views';
import { documentsVisibleTo } from '#services/documents/list';
import { accountNames } from '#services/auth/account-names';
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
  const names = await accountNames(page.map((d) => d.accountId));
  return ok(
    page.map((d) => ({ ...documentListView(d), account_id: d.accountId, account_name: names.get(d.accountId) ?? null })),
    { extra: { meta } },
  );
});
