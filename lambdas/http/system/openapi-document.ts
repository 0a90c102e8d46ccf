import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import type { GenericSchema } from 'valibot';
import { fieldErrors } from '../kit/validate';
import type { ResponseDef, RouteDef } from '#catalog/types';
import { fullPath } from '#catalog/routing';
import type { RequestExample } from './request-examples';

/** The twin's answers, recorded (scripts/postman-record.ts): by route id, and the shared failures by status. */
export interface AnswerExamples {
  success: Record<string, { status: number; body: unknown }>;
  failure: Record<string, unknown>;
}

/**
 * The 422 a route gives, as the service words it: its body schema held to an empty body (every
 * required field named), or its query to a value no parameter takes; undefined when neither fails.
 */
function validationExample(r: RouteDef): Json | undefined {
  const tried = r.schemas?.body ? v.safeParse(r.schemas.body, {}, { abortPipeEarly: true }) : undefined;
  const query = r.schemas?.query ? schemaOf(r.schemas.query) : undefined;
  const first = Object.keys((query?.properties as Json | undefined) ?? {})[0];
  const attempt = tried && !tried.success ? tried : r.schemas?.query && first ? v.safeParse(r.schemas.query, { [first]: '\u0000' }, { abortPipeEarly: true }) : undefined;
  if (!attempt || attempt.success) return undefined;
  return { success: false, message: 'The given data was invalid.', error: 'validation_failed', errors: fieldErrors(attempt.issues) };
}

type Json = Record<string, unknown>;

const errorBody = {
  type: 'object',
  required: ['success', 'message'],
  properties: {
    success: { const: false },
    message: { type: 'string' },
    error: { type: 'string', description: 'Stable machine code' },
    errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
    errors_total: { type: 'integer', description: 'How many fields failed, when more than the 1,000 listed in `errors` (correct them and send again to see the rest)' },
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

const errorMessages: Record<number, string> = {
  400: 'Malformed request (bad JSON, bad Idempotency-Key, bad multipart)',
  401: 'No token, a bad or revoked token, a token revoked since its answer was cached (`token_revoked`), an expired token (`token_expired`), or a bad X-Signature',
  403: 'Authenticated, but not allowed',
  404: 'Not found, or not yours',
  409: 'Conflict with the current state',
  410: 'Gone',
  413: 'Too large',
  415: 'Unsupported content type',
  422: 'Invalid: one entry per failing field in `errors`',
  423: 'Locked',
  429: 'Rate limit exceeded: retry after `Retry-After` seconds',
  500: 'Internal error, with a request id and no internals',
  503: 'Busy: retry shortly',
};

const header = (description: string, type: 'string' | 'integer' = 'string'): Json => ({ description, schema: { type } });
const requestIdHeader = { 'X-Request-Id': header('The request id (the one sent, when it was a valid one)') };
const rateHeaders = {
  'X-RateLimit-Limit': header("Requests allowed per minute in the route's rate group", 'integer'),
  'X-RateLimit-Remaining': header('Requests left in this minute', 'integer'),
  'X-RateLimit-Reset': header('Unix time (seconds) when the window resets', 'integer'),
};

/** The failures any route of its kind can give, with their codes. */
function kindFailures(r: RouteDef): Record<number, ResponseDef> {
  const out: Record<number, ResponseDef> = {};
  const add = (status: number, ...errors: string[]) => (out[status] = { description: errorMessages[status], errors });
  const hasPathIds = /\{\w+\}/.test(r.path);
  // A JSON body is parsed and held to the kit's JSON rules on every method that carries one,
  // whether or not the route reads it (a route without a body schema ignores a body that parses).
  const parsesBody = !!r.schemas?.body || (!r.rawBody && ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method));
  if (parsesBody) add(400, 'bad_request');
  if (r.auth !== 'public') add(401, 'unauthorized', 'token_expired', 'token_revoked');
  if (r.auth !== 'public' && (r.auth.roles || r.auth.scopes)) add(403, 'forbidden');
  if (hasPathIds && r.schemas?.params) add(404, 'not_found');
  // Every route reads its body within a limit (1 MiB unless it says more): over it, 413.
  add(413, 'payload_too_large');
  if (parsesBody) add(415, 'unsupported_media_type');
  if (parsesBody || r.schemas?.query) add(422, 'validation_failed');
  const reads = r.responses?.requestHeaders ?? [];
  if (reads.includes('Idempotency-Key')) {
    add(400, 'bad_request');
    out[409] = { description: 'The Idempotency-Key was used with another payload, or its first request is still running', errors: ['conflict'], headers: { 'Retry-After': { description: 'Seconds to wait while the first request runs', type: 'integer' } } };
  }
  if (reads.includes('X-Signature')) add(401, 'unauthorized');
  if (r.rate) out[429] = { description: errorMessages[429], errors: ['rate_limited'], headers: { 'Retry-After': { description: 'Seconds until the window resets', type: 'integer' } } };
  add(500, 'internal_error');
  return out;
}

/** Two declarations of one status: the codes, headers and descriptions of both. */
function merge(a: ResponseDef | undefined, b: ResponseDef): ResponseDef {
  if (!a) return b;
  return {
    ...a,
    ...b,
    description: b.description,
    errors: [...new Set([...(a.errors ?? []), ...(b.errors ?? [])])],
    headers: { ...a.headers, ...b.headers },
  };
}

/** The failure body: the shared shape, the codes of this status, and the route's extra fields. */
function failureSchema(def: ResponseDef, status: number): Json {
  const extra = def.body ? ((schemaOf(def.body) as { properties?: Json }).properties ?? {}) : {};
  const properties: Json = { ...(errorBody.properties as Json), ...extra };
  properties.error = { type: 'string', enum: [...(def.errors ?? [])], description: 'Stable machine code' };
  if (status !== 422) {
    delete properties.errors;
    delete properties.errors_total;
  }
  if (status === 500) properties.request_id = { type: 'string' };
  return { type: 'object', required: ['success', 'message', 'error'], properties };
}

/**
 * API Gateway's own 401, for a request without an Authorization header: no function runs, so the
 * body is the gateway's, not the service's (docs/partners/authentication.md).
 */
const gatewayUnauthorized: Json = {
  type: 'object',
  description: "API Gateway's own answer to a request without an Authorization header",
  required: ['message'],
  additionalProperties: false,
  properties: {
    message: { type: 'string', const: 'Unauthorized' },
    hint: { type: 'string', description: 'The local twin only: what is missing and how to send it. A deployed stage answers `message` alone.' },
  },
};

function responseObject(r: RouteDef, status: number, def: ResponseDef, answers?: AnswerExamples): Json {
  const headers: Json = { ...requestIdHeader, ...(r.rate ? rateHeaders : {}) };
  for (const [name, h] of Object.entries(def.headers ?? {})) headers[name] = header(h.description, h.type);
  const out: Json = { description: def.description, headers };
  const content: Json = {};
  // Examples are real answers: the twin's to the route's example request, the gateway's 401
  // without a token, the service's 422 naming the fields (what the mock answers).
  const recorded = answers?.success[r.id];
  const success = recorded?.status === status ? { example: recorded.body } : {};
  const invalid = status === 422 ? validationExample(r) : undefined;
  if (status === 401 && r.auth !== 'public') {
    content['application/json'] = { schema: { oneOf: [failureSchema(def, status), gatewayUnauthorized] }, ...(answers?.failure[401] ? { example: answers.failure[401] } : {}) };
  } else if (status >= 400 && def.errors) content['application/json'] = { schema: failureSchema(def, status), ...(invalid ? { example: invalid } : {}) };
  else if (def.body) content['application/json'] = { schema: schemaOf(def.body), ...success };
  for (const type of def.file ?? []) content[type] = { schema: { type: 'string', contentMediaType: type } };
  if (Object.keys(content).length) out.content = content;
  return out;
}

/** Every answer of a route: its declared ones over the ones of its kind. */
export function routeAnswers(r: RouteDef): Record<number, ResponseDef> {
  const answers = kindFailures(r);
  const declared = r.responses?.answers ?? { [r.successStatus ?? 200]: { description: 'Success' } };
  for (const [status, def] of Object.entries(declared)) answers[Number(status)] = merge(answers[Number(status)], def);
  return answers;
}

const requestHeaders: Record<string, Json> = {
  'Idempotency-Key': {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description: 'A UUID: a repeat with the same key and payload replays the first answer (`Idempotent-Replayed: true`); with another payload, 409',
    schema: { type: 'string', format: 'uuid' },
  },
  'X-Signature': {
    name: 'X-Signature',
    in: 'header',
    required: false,
    description: "`sha256=<hex>`: the HMAC-SHA256 of the raw request body keyed with the account's manifest signing secret; required once the account has one",
    schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
  },
};

/** What each tag of the catalog groups, for the reference's table of contents. */
const tagDescriptions: Record<string, string> = {
  system: 'Liveness, this document and its reference page: public',
  account: "The caller's own account and tokens",
  admin: "The operator's accounts, tokens, signing secrets, tariff table and migrations (role admin)",
  storage: 'Manifest files stored as they were uploaded (spec 4.7)',
  documents: 'Transport documents: upload, review workflow, versions, downloads (spec 4.2)',
  couriers: 'Courier manifests: submission (whole, chunked, Excel), tracking, downloads, batches (spec 4.3, 4.4)',
  customs: 'Tax-id quota, client info and landed-cost quotes (spec 4.6)',
  manifests: 'The alternative manifest interface (spec 4.5)',
  review: "The broker's review of processed batches (channel A, RO, low confidence; NCM corrections) and a tax id's quota shipments",
  console: "The console for the broker's staff and partners: one page and its assets, served at the root",
  dashboard: 'The webhook dashboard page and its assets, served at the root',
  webhooks: 'Webhook subscriptions, deliveries and signing secrets (spec 4.8); the events are under `webhooks`',
  orders: 'Orders, shipments, labels, marketplaces, stock and warehouses (spec 4.1)',
  events: "The account's events of the last 30 days, pulled by cursor: each the envelope its deliveries send",
};

/** An outbound event: what it means and the schema of its `data`. */
export interface EventDoc {
  description: string;
  /** What makes it fire. */
  when?: string;
  data: GenericSchema;
  /** One `data` as a delivery carries it. */
  example?: unknown;
}

const deliveryHeader = (name: string, description: string, schema: Json = { type: 'string' }): Json => ({ name, in: 'header', required: true, description, schema });

/** OpenAPI 3.1 `webhooks`: one POST per event, its envelope (spec 2.10) and the signature headers (spec 5.7). */
function webhooksOf(events: Record<string, EventDoc>): Json {
  const parameters = [
    deliveryHeader(
      'X-Service-Signature',
      '`sha256=` and the hex HMAC-SHA256, keyed with the subscription\'s hmac_secret as text (its UTF-8 bytes, `whsec_` included), of `<X-Service-Timestamp>.<raw JSON body>`; reject a mismatch (e.g. 401)',
      { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
    ),
    deliveryHeader('X-Service-Timestamp', 'Unix time of the attempt, in seconds', { type: 'string', pattern: '^[0-9]+$' }),
    {
      ...deliveryHeader(
        'X-Service-Previous-Signature',
        'Only for 24 hours after a rotation (until previous_secret_expires_at): X-Service-Signature\'s rule keyed with the rotated-out secret, so a receiver still holding it verifies until it switches',
        { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
      ),
      required: false,
    },
    deliveryHeader('webhook-id', 'Standard Webhooks: the envelope id, the same on every attempt'),
    deliveryHeader('webhook-timestamp', 'Standard Webhooks: Unix time of the attempt, in seconds (the same as X-Service-Timestamp)', { type: 'string', pattern: '^[0-9]+$' }),
    deliveryHeader(
      'webhook-signature',
      'Standard Webhooks: `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">`, keyed with the bytes the base64 after `whsec_` in hmac_secret stands for; space-separated, one per signing secret (two while a rotated-out secret overlaps). Verify with a Standard Webhooks library',
      { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$' },
    ),
    deliveryHeader('X-Service-Event', 'The event name (the envelope\'s `type`)'),
    deliveryHeader('X-Service-Delivery', 'The delivery id (the same on every attempt of one delivery)'),
  ];
  return Object.fromEntries(
    Object.entries(events).map(([name, e]) => [
      name,
      {
        post: {
          operationId: `event_${name.replace(/\W/g, '_')}`,
          summary: e.description,
          ...(e.when ? { description: `Sent when ${e.when}.` } : {}),
          tags: ['webhooks'],
          security: [],
          parameters,
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['id', 'type', 'created_at', 'data'],
                  additionalProperties: false,
                  properties: {
                    id: { type: 'string', description: 'Unique event id, the same on every attempt: deduplicate by it' },
                    type: { const: name },
                    created_at: { type: 'string', format: 'date-time' },
                    data: schemaOf(e.data),
                  },
                },
                ...(e.example === undefined ? {} : { example: { id: 'evt_3f1c9a0e5b7d4c2a8e6f1b3d5a7c9e0f', type: name, created_at: '2026-12-07T10:15:00.000Z', data: e.example } }),
              },
            },
          },
          responses: {
            '200': { description: 'Any 2xx within 5 seconds accepts the delivery; anything else is retried at +1 min, +5 min, +30 min, +2 h and +24 h' },
          },
        },
      },
    ]),
  );
}

/** A raw body's schema: text, or a form of the schema's fields plus its files (binary). */
function rawBodySchema(raw: NonNullable<RouteDef['rawBody']>): Json {
  if (!raw.schema && !raw.files) return { type: 'string' };
  const fields = (raw.schema ? schemaOf(raw.schema) : { type: 'object', properties: {}, required: [] }) as { properties?: Json; required?: string[] };
  const files = raw.files ?? [];
  return {
    type: 'object',
    properties: { ...fields.properties, ...Object.fromEntries(files.map((f) => [f, { type: 'string', format: 'binary' }])) },
    required: [...(fields.required ?? []), ...files],
  };
}

/** The OpenAPI 3.1 document of every catalog route, with request schemas from its valibot schemas. */
export function openApiDocument(
  routes: RouteDef[],
  info: { title: string; version: string },
  extra: { events?: Record<string, EventDoc>; requestExamples?: Record<string, RequestExample>; answerExamples?: AnswerExamples } = {},
): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const r of routes) {
    const answers = routeAnswers(r);
    const example = extra.requestExamples?.[r.id];
    // Each parameter carries its example value, when the route has one for it.
    const withExample = (p: Json): Json => {
      const value = (p.in === 'path' ? example?.params : p.in === 'query' ? example?.query : undefined)?.[p.name as string];
      if (value === undefined) return p;
      // A query or path parameter is text: a number written in the examples is its digits.
      return { ...p, example: (p.schema as Json | undefined)?.type === 'string' ? String(value) : value };
    };
    const op: Json = {
      operationId: r.id,
      summary: r.summary,
      tags: [r.tag],
      parameters: [
        ...pathParameters(r).map(withExample),
        ...parameters(r.schemas?.query, 'query').map(withExample),
        ...(r.responses?.requestHeaders ?? []).map((h) => requestHeaders[h]),
      ],
      responses: Object.fromEntries(Object.entries(answers).map(([status, def]) => [status, responseObject(r, Number(status), def, extra.answerExamples)])),
    };
    if (r.auth === 'public') op.security = [];
    else op.security = [{ bearer: [...(r.auth.scopes ?? [])] }];
    // The answer of a first, successful request (202 for a submission, where 200 is its replay):
    // what the mock answers and the Postman collection's tests expect.
    op['x-success-status'] = r.successStatus ?? 200;
    if (r.rate) op['x-rate-limit-group'] = r.rate;
    if (r.auth !== 'public' && r.auth.roles) op['x-roles'] = r.auth.roles;
    if (r.auth !== 'public' && r.auth.scopes) op['x-scopes'] = r.auth.scopes;
    if (r.schemas?.body) {
      op.requestBody = { required: true, content: { 'application/json': { schema: schemaOf(r.schemas.body), ...(example?.body !== undefined ? { example: example.body } : {}) } } };
    } else if (r.rawBody) {
      const sample = example?.text ?? example?.body;
      op.requestBody = { required: true, description: r.rawBody.description, content: { [r.rawBody.contentType]: { schema: rawBodySchema(r.rawBody), ...(sample !== undefined ? { example: sample } : {}) } } };
    }
    (paths[fullPath(r)] ??= {})[r.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info,
    servers: [{ url: '/' }],
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name, description: tagDescriptions[name] ?? name })),
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API token. An operation that lists scopes needs a token holding them (orders:read, orders:write, customs:read, customs:write); `x-roles` names the roles allowed (admin, broker, partner).',
        },
      },
    },
    security: [{ bearer: [] }],
    paths,
    ...(extra.events ? { webhooks: webhooksOf(extra.events) } : {}),
  };
}
