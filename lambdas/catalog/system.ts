import type { RouteDef } from './types';

export const Health = {
  id: 'Health',
  method: 'GET',
  path: '/health',
  handler: 'http/system/health',
  summary: 'Liveness: 200 once the service answers',
  tag: 'system',
  auth: 'public',
} satisfies RouteDef;

export const OpenApi = {
  id: 'OpenApi',
  method: 'GET',
  path: '/openapi.json',
  handler: 'http/system/openapi',
  summary: 'This OpenAPI 3.1 document',
  tag: 'system',
  auth: 'public',
} satisfies RouteDef;

export const ApiDocs = {
  id: 'ApiDocs',
  method: 'GET',
  path: '/docs',
  handler: 'http/system/docs',
  summary: 'The reference as a page (Redoc, served from here, offline)',
  tag: 'system',
  auth: 'public',
} satisfies RouteDef;

export const ApiDocsScript = {
  id: 'ApiDocsScript',
  method: 'GET',
  path: '/docs/{asset}',
  handler: 'http/system/docs',
  summary: "The reference page's script",
  tag: 'system',
  auth: 'public',
} satisfies RouteDef;

/** Liveness, this API's OpenAPI document and its reference page: public. */
export const systemRoutes = { Health, OpenApi, ApiDocs, ApiDocsScript };
