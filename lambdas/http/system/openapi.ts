import { publicRoute } from '../kit/public-route';
import { routes } from '#catalog';
import { openApiDocument } from './openapi-document';
import { webhookEvents } from '#core/webhooks/events';
import type { RouteDef, RouteResponses } from '#catalog/types';
import { accountResponses } from '../auth/responses';
import { adminResponses } from '../admin/responses';
import { couriersResponses } from '../manifests/responses';
import { customsResponses } from '../customs/responses';
import { dashboardResponses } from '../dashboard/responses';
import { documentsResponses } from '../documents/responses';
import { deliveriesResponses } from '../deliveries/responses';
import { inventoryResponses } from '../inventory/responses';
import { manifestsResponses } from '../manifests/alternative/responses';
import { reviewResponses } from '../review/responses';
import { consoleResponses } from '../console/responses';
import { ordersResponses } from '../orders/responses';
import { shippingResponses } from '../shipping/responses';
import { storageResponses } from '../manifest-files/responses';
import { systemResponses } from './responses';
import { eventsResponses, webhooksResponses } from '../webhooks/responses';
import { eventPayloads } from '../webhooks/event-payloads';
import { requestExamples } from './request-examples';
import answerExamples from './recorded-answers.json';

/**
 * What each route answers, by route id, from the areas' responses.ts: joined to the catalog's
 * routes only here (and by the integration suite's contract check, through this document), so
 * no handler, nor the authorizer that reads the catalog, carries the answer schemas.
 */
const answers: Record<string, RouteResponses> = {
  ...systemResponses,
  ...accountResponses,
  ...adminResponses,
  ...storageResponses,
  ...documentsResponses,
  ...deliveriesResponses,
  ...couriersResponses,
  ...customsResponses,
  ...manifestsResponses,
  ...reviewResponses,
  ...dashboardResponses,
  ...consoleResponses,
  ...webhooksResponses,
  ...eventsResponses,
  ...ordersResponses,
  ...shippingResponses,
  ...inventoryResponses,
};

/** The catalog's routes with what each answers. */
const documentedRoutes = (): RouteDef[] => routes.map((r) => ({ ...r, responses: answers[r.id] }));

/** Every outbound event: what it means, when it fires, the schema of its `data` and an example (webhooks/event-payloads.ts). */
const events = Object.fromEntries(
  webhookEvents.map((e) => [e.event, { description: e.description, when: eventPayloads[e.event].when, data: eventPayloads[e.event].data, example: eventPayloads[e.event].example }]),
);

let document: Record<string, unknown> | undefined;

/** The document this route serves (built once per instance). */
export function serviceDocument(): Record<string, unknown> {
  return (document ??= openApiDocument(documentedRoutes(), { title: 'Despacho API', version: '1.0.0' }, { events, requestExamples, answerExamples }));
}

export const handler = publicRoute({ public: true }, async () => {
  const document = serviceDocument();
  return { status: 200, body: document, headers: { 'Cache-Control': 'public, max-age=300' } };
});
