import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { documentDetailView } from '#core/documents/views';
import { findDocument } from '#services/documents/documents';
import { DocumentsShow } from '#catalog/documents';

export const handler = route(DocumentsShow.schemas, async ({ params, principal }) => ok(documentDetailView(await findDocument(principal, params.id))));
