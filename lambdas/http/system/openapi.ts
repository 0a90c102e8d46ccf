import { route } from '../kit/route';
import { routes } from '../../catalog';
import { openApiDocument } from '../../core/openapi';

let document: unknown;

export const handler = route({ public: true }, async () => {
  document ??= openApiDocument(routes, { title: 'Despacho API', version: '1.0.0' });
  return { status: 200, body: document, headers: { 'Cache-Control': 'public, max-age=300' } };
});
