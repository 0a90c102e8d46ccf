import { route } from '../kit/route';
import { routes } from '../../catalog';
import { openApiDocument } from '../../core/openapi';
import { webhookEvents } from '../../core/webhooks/events';
import { webhookEventData } from '../webhooks/responses';

/** Every outbound event with the schema of its `data`. */
const events = Object.fromEntries(webhookEvents.map((e) => [e.event, { description: e.description, data: webhookEventData[e.event] }]));

let document: Record<string, unknown> | undefined;

/** The document this route serves (built once per instance). */
export function serviceDocument(): Record<string, unknown> {
  return (document ??= openApiDocument(routes, { title: 'Despacho API', version: '1.0.0' }, { events }));
}

export const handler = route({ public: true }, async () => {
  const document = serviceDocument();
  return { status: 200, body: document, headers: { 'Cache-Control': 'public, max-age=300' } };
});
