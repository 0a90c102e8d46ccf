import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { IdParams } from '../kit/schemas';
import { removeDocument } from '../../services/documents/documents';

export const handler = route({ params: IdParams }, async ({ params, principal }) => {
  await removeDocument(principal, params.id);
  return ok(undefined, { message: 'Document deleted.' });
});
