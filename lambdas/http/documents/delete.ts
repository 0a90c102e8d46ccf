import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { removeDocument } from '#services/documents/documents';
import { DocumentsDelete } from '#catalog/documents';

export const handler = route(DocumentsDelete.schemas, async ({ params, principal }) => {
  await removeDocument(principal, params.id);
  return ok(undefined, { message: 'Document deleted.' });
});
