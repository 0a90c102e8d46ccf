import type { RouteDef } from '../../catalog-types';
import { systemResponses } from './responses';

/** Liveness and this API's OpenAPI document: public. */
export const systemRoutes: RouteDef[] = [
  {
    id: 'Health',
    method: 'GET',
    path: '/health',
    handler: 'http/system/health',
    summary: 'Liveness: 200 once the service answers',
    tag: 'system',
    responses: systemResponses.Health,
    auth: 'public',
  },
  {
    id: 'OpenApi',
    method: 'GET',
    path: '/openapi.json',
    handler: 'http/system/openapi',
    summary: 'This OpenAPI 3.1 document',
    tag: 'system',
    responses: systemResponses.OpenApi,
    auth: 'public',
  },
];
