import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { documentListView } from '../../core/documents/views';
import { seesAllAccounts } from '../../core/auth/principal';
import { listDocuments } from '../../infra/entities/documents';
import { ListQuery } from './schemas';

export const handler = route({ query: ListQuery }, async ({ query, principal }) => {
  const all = await listDocuments(seesAllAccounts(principal) ? undefined : principal.accountId);
  const matching = all.filter(
    (d) =>
      (!query.manifest_id || d.manifestId === query.manifest_id) &&
      (!query.awb_number || d.awbNumber === query.awb_number) &&
      (!query.document_type || d.documentType === query.document_type) &&
      (!query.state || d.state === query.state),
  );
  const perPage = query.per_page;
  const lastPage = Math.max(1, Math.ceil(matching.length / perPage));
  const page = matching.slice((query.page - 1) * perPage, query.page * perPage);
  return ok(page.map(documentListView), {
    extra: { meta: { current_page: query.page, last_page: lastPage, per_page: perPage, total: matching.length } },
  });
});
