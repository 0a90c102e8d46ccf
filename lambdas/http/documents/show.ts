import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { IdParams } from '../kit/schemas';
import { documentDetailView } from '../../core/documents/views';
import { findDocument } from '../../services/documents/documents';

export const handler = route({ params: IdParams }, async ({ params, principal }) => ok(documentDetailView(await findDocument(principal, params.id))));
