import type { RouteDef } from '../../catalog-types';
import { systemResponses } from './responses';

/** Liveness, this API's OpenAPI document and its reference page: public. */
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
  {
    id: 'ApiDocs',
    method: 'GET',
    path: '/docs',
    handler: 'http/system/docs',
    summary: 'The reference as a page (Redoc, served from here, offline)',
    tag: 'system',
    responses: systemResponses.ApiDocs,
    auth: 'public',
  },
  {
    id: 'ApiDocsScript',
    method: 'GET',
    path: '/docs/{asset}',
    handler: 'http/system/docs',
    summary: "The reference page's script",
    tag: 'system',
    responses: systemResponses.ApiDocsScript,
    auth: 'public',
  },
];
