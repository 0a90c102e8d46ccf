import { toJsonSchema } from '@valibot/to-json-schema';
import type { GenericSchema } from 'valibot';
import type { RouteDef } from '../catalog-types';
import { fullPath } from '../routing';

type Json = Record<string, unknown>;

const errorBody = {
  type: 'object',
  required: ['success', 'message'],
  properties: {
    success: { const: false },
    message: { type: 'string' },
    error: { type: 'string', description: 'Stable machine code' },
    errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
  },
};

function schemaOf(s: GenericSchema): Json {
  return toJsonSchema(s, { errorMode: 'ignore', target: 'draft-2020-12' }) as Json;
}

/** Query and path parameters from an object schema's properties. */
function parameters(s: GenericSchema | undefined, where: 'query' | 'path'): Json[] {
  if (!s) return [];
  const js = schemaOf(s) as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([name, schema]) => ({
    name,
    in: where,
    required: where === 'path' || (js.required ?? []).includes(name),
    schema,
  }));
}

/**
 * Every `{name}` of the path template is declared as a path parameter: from the route's params
 * schema when it has one, else as a string (a route that reads its path itself, as the dashboard's
 * asset route does). An undeclared template parameter makes the document invalid.
 */
function pathParameters(r: RouteDef): Json[] {
  const declared = parameters(r.schemas?.params, 'path');
  const names = [...fullPath(r).matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  return names.map((name) => declared.find((p) => p.name === name) ?? { name, in: 'path', required: true, schema: { type: 'string' } });
}

/** The OpenAPI 3.1 document of every catalog route, with request schemas from its valibot schemas. */
export function openApiDocument(routes: RouteDef[], info: { title: string; version: string }): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const r of routes) {
    const op: Json = {
      operationId: r.id,
      summary: r.summary,
      tags: [r.tag],
      parameters: [...pathParameters(r), ...parameters(r.schemas?.query, 'query')],
      responses: {
        [String(r.successStatus ?? 200)]: { description: 'Success', content: { 'application/json': { schema: { type: 'object', properties: { success: { const: true } } } } } },
        default: { description: 'Failure', content: { 'application/json': { schema: errorBody } } },
      },
    };
    if (r.auth === 'public') op.security = [];
    if (r.rate) op['x-rate-limit-group'] = r.rate;
    if (r.auth !== 'public' && r.auth.roles) op['x-roles'] = r.auth.roles;
    if (r.auth !== 'public' && r.auth.scopes) op['x-scopes'] = r.auth.scopes;
    if (r.schemas?.body) {
      op.requestBody = { required: true, content: { 'application/json': { schema: schemaOf(r.schemas.body) } } };
    }
    (paths[fullPath(r)] ??= {})[r.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info,
    servers: [{ url: '/' }],
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    security: [{ bearer: [] }],
    paths,
  };
}
