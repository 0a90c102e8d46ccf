import middy from '@middy/core';
import httpCors from '@middy/http-cors';
import httpSecurityHeaders from '@middy/http-security-headers';
import type { APIGatewayProxyEventV2WithLambdaAuthorizer, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as v from 'valibot';
import { NotFound, PayloadTooLarge, ServiceError, Unauthorized, ValidationFailed, errorForStatus } from '#core/errors';
import type { Principal } from '#core/auth/principal';
import { principalRefusal } from '#services/auth/expiry';
import { config } from '#shared/config';
import { decodeContext, type AuthContext } from './auth-context';
import type { Denial } from './auth-context';
import { logger, withLogKeys } from '#shared/logger';
import { corsPolicy } from './cors';
import { requestIdOf } from './request-id';
import type { Reply } from './reply';
import { validate } from './validate';
import { parseJson, validateBody } from './json-body';
import { pageHeaders } from './page-headers';

export type ApiEvent = APIGatewayProxyEventV2WithLambdaAuthorizer<AuthContext>;
export type ApiResult = APIGatewayProxyStructuredResultV2;

type Out<S> = S extends v.GenericSchema ? v.InferOutput<S> : undefined;

export interface RouteOptions<B, Q, P> {
  body?: B;
  query?: Q;
  params?: P;
  /** Routes that need no token (health, openapi). */
  public?: boolean;
  /**
   * `json` (default) parses the body with the rules of json-body.ts and validates it; `raw` hands
   * the handler the bytes (uploads, signed bodies), and any JSON in them goes through json-body.ts.
   */
  bodyMode?: 'json' | 'raw';
  /** Largest body accepted, in bytes (default 1 MiB); larger -> 413 before any parsing. */
  maxBodyBytes?: number;
  /** The 413 message, when the route has a better way to offer (e.g. chunked mode). */
  tooLargeMessage?: string;
  /**
   * The exact Content-Security-Policy of an HTML page (the middleware's defaults would add
   * `sandbox` and `upgrade-insecure-requests`); JSON answers keep `default-src 'none'`.
   */
  csp?: Record<string, string>;
  /** Permissions-Policy features a page needs, e.g. `{ 'clipboard-write': 'self' }`; with `csp` only (a page's headers). */
  permissions?: Record<string, string>;
}

export interface ApiRequest<B, Q, P> {
  event: ApiEvent;
  requestId: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  body: Out<B>;
  rawBody?: Buffer;
  query: Out<Q>;
  params: Out<P>;
  principal: Principal;
}

const defaultMaxBody = 1024 * 1024;

/** The rate headers the gate gave a request, for its answer whatever it is. */
const answerHeaders = new WeakMap<object, Record<string, string>>();

/** What a route's function judges on every request after the authorizer's verdict (kit/gate.ts). */
export type Admit = (routeKey: string, principal: Principal) => Promise<{ denial?: Denial; headers?: Record<string, string> }>;

/**
 * The `route` wrapper of a kind of handler. `route` (kit/route.ts) judges roles, scopes and the
 * rate window with the gate; `publicRoute` (kit/public-route.ts) serves only routes that take no
 * token, so its bundles carry neither the gate nor the table.
 */
export function makeRoute(admit: Admit | undefined) {
  return function route<B extends v.GenericSchema | undefined = undefined, Q extends v.GenericSchema | undefined = undefined, P extends v.GenericSchema | undefined = undefined>(
    opts: RouteOptions<B, Q, P>,
    fn: (req: ApiRequest<B, Q, P>) => Promise<Reply>,
  ) {
    return wrap(admit, opts, fn);
  };
}

/**
 * Wraps a thin handler in the shared middleware stack: request id, authorizer verdict,
 * body limits, JSON parsing and validation, error mapping, security headers and CORS.
 */
function wrap<B extends v.GenericSchema | undefined, Q extends v.GenericSchema | undefined, P extends v.GenericSchema | undefined>(
  admit: Admit | undefined,
  opts: RouteOptions<B, Q, P>,
  fn: (req: ApiRequest<B, Q, P>) => Promise<Reply>,
) {
  /** An HTML page's own headers, made once for the route (kit/page-headers.ts). */
  const ownHeaders = opts.csp ? pageHeaders(opts.csp, opts.permissions) : undefined;
  const core = async (event: ApiEvent, context: Context & { requestId?: string }): Promise<ApiResult> => {
    const requestId = context.requestId!;
    const headers = lowerCaseHeaders(event.headers);
    const { principal, denial } = decodeContext(event.requestContext.authorizer?.lambda);
    if (denial) throw errorForStatus(denial.status, denial.message, denial.headers, denial.extra);
    if (!opts.public) {
      if (!principal) throw new Unauthorized();
      // A token that expired after the authorizer's answer (which API Gateway may have cached): exact to the second.
      const expired = principalRefusal(principal);
      if (expired) throw new Unauthorized(expired.message, { error: expired.error });
      if (!admit) throw new Unauthorized();
      const admitted = await withLogKeys({ requestId, route: event.routeKey }, () => admit(event.routeKey, principal));
      if (admitted.headers) answerHeaders.set(event, admitted.headers);
      if (admitted.denial) throw errorForStatus(admitted.denial.status, admitted.denial.message, admitted.denial.headers, admitted.denial.extra);
    }

    const params = opts.params ? validatePath(opts.params, event.pathParameters ?? {}) : undefined;
    const query = opts.query ? validate(opts.query, { ...(event.queryStringParameters ?? {}) }) : undefined;
    const rawBody = readBody(event, opts.maxBodyBytes ?? defaultMaxBody, opts.tooLargeMessage);
    let body: unknown;
    if ((opts.bodyMode ?? 'json') === 'json') {
      const parsed = parseJson(rawBody, headers['content-type']);
      body = opts.body ? validateBody(opts.body, parsed) : undefined;
    }
    // Every line the handler and the services it calls log carries the request id, the route and the path's ids (as the access log does).
    const reply = await withLogKeys({ requestId, route: event.routeKey, ...(event.pathParameters ? { ids: pathIds(event.pathParameters) } : {}) }, () =>
      fn({
        event,
        requestId,
        headers,
        body: body as Out<B>,
        rawBody,
        query: query as Out<Q>,
        params: params as Out<P>,
        principal: principal as Principal,
      }),
    );
    const result = serialize(reply);
    if (ownHeaders) result.headers = { ...result.headers, ...ownHeaders };
    return result;
  };

  return middy<ApiEvent, ApiResult, Error, Context & { requestId?: string }>(core)
    .use(
      httpCors({
        origins: config.corsOrigins(),
        headers: corsPolicy.allowHeaders.join(','),
        exposeHeaders: corsPolicy.exposeHeaders.join(','),
        maxAge: corsPolicy.maxAgeSeconds,
      }),
    )
    .use(
      httpSecurityHeaders({
        poweredBy: false,
        reportingEndpoints: false,
        reportTo: false,
        contentSecurityPolicy: opts.csp ? false : { 'default-src': "'none'", 'frame-ancestors': "'none'" },
        // A page's own (kit/page-headers.ts): the defaults name features Chromium does not know.
        permissionsPolicy: false,
        xssProtection: false,
      } as Parameters<typeof httpSecurityHeaders>[0]),
    )
    .use(requestIdAndErrors());
}

/** The path's parameters for the access log, each cut to 128 characters (they are the caller's text). */
function pathIds(params: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).flatMap(([k, v]) => (v === undefined ? [] : [[k, v.slice(0, 128)]])));
}

/**
 * What a function may answer: Lambda refuses a response over 6 MB (headers included) and the
 * caller gets a bare 502 from the gateway. Every route bounds its answers below this (pages,
 * the feed's bytes, validation errors capped at 1,000, downloads over 5 MB by a signed URL); an
 * answer that passes it anyway is a defect, answered as one: a 500 with its request id, logged.
 */
export const answerMaxBytes = 6 * 1024 * 1024 - 64 * 1024;

/** Request id, access log, and the single place where errors become HTTP answers. */
function requestIdAndErrors(): middy.MiddlewareObj<ApiEvent, ApiResult, Error, Context & { requestId?: string }> {
  const startedAt = new WeakMap<object, number>();
  const finish = (request: middy.Request<ApiEvent, ApiResult, Error, Context & { requestId?: string }>) => {
    // A string of n characters is at most 3n bytes: most answers are measured by their length alone.
    const body = request.response?.body;
    const bytes = typeof body === 'string' && body.length * 3 > answerMaxBytes ? Buffer.byteLength(body) : 0;
    if (bytes > answerMaxBytes) request.response = errorResponse(new Error(`The answer is ${bytes} bytes, over Lambda's 6 MB.`), request.context.requestId!);
    const res = (request.response ??= { statusCode: 500 });
    res.headers = { ...res.headers, ...answerHeaders.get(request.event), 'X-Request-Id': request.context.requestId! };
    logger.info('request', {
      requestId: request.context.requestId,
      route: request.event.routeKey,
      // The resource the request named (a document, batch, order or subscription id): the path's ids, never a body.
      ...(request.event.pathParameters ? { ids: pathIds(request.event.pathParameters) } : {}),
      status: res.statusCode,
      ms: Date.now() - (startedAt.get(request.context) ?? Date.now()),
    });
  };
  return {
    before: (request) => {
      startedAt.set(request.context, Date.now());
      request.context.requestId = requestIdOf(request.event.headers, request.event.requestContext?.requestId || request.context.awsRequestId);
    },
    after: finish,
    onError: (request) => {
      request.response = errorResponse(request.error, request.context.requestId!);
      finish(request);
    },
  };
}

export function errorResponse(error: unknown, requestId: string): ApiResult {
  if (error instanceof ServiceError) {
    const body: Record<string, unknown> = {
      success: false,
      message: error.message,
      error: error.code,
      ...error.extra,
    };
    if (error instanceof ValidationFailed) body.errors = error.errors;
    return { statusCode: error.status, headers: { 'Content-Type': 'application/json', ...error.headers }, body: JSON.stringify(body) };
  }
  logger.error('unhandled error', { requestId, error: error as Error });
  return {
    statusCode: 500,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ success: false, message: 'Internal server error.', error: 'internal_error', request_id: requestId }),
  };
}

function serialize(reply: Reply): ApiResult {
  if (reply.raw) {
    const isBuffer = Buffer.isBuffer(reply.raw.body);
    return {
      statusCode: reply.status,
      headers: { 'Content-Type': reply.raw.contentType, ...reply.headers },
      body: isBuffer ? (reply.raw.body as Buffer).toString('base64') : (reply.raw.body as string),
      isBase64Encoded: isBuffer,
    };
  }
  return {
    statusCode: reply.status,
    headers: { 'Content-Type': 'application/json', ...reply.headers },
    body: reply.body === undefined ? '' : JSON.stringify(reply.body),
  };
}

function readBody(event: ApiEvent, max: number, tooLarge?: string): Buffer | undefined {
  if (event.body === undefined || event.body === null || event.body === '') return undefined;
  const buf = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
  if (buf.length > max) throw new PayloadTooLarge(tooLarge ?? `The request body is larger than ${max} bytes.`);
  return buf;
}

/** A path id that does not fit its schema names no record: 404, as for any unknown path. */
function validatePath<S extends v.GenericSchema>(schema: S, params: Record<string, string | undefined>) {
  try {
    return validate(schema, params);
  } catch (err) {
    if (err instanceof ValidationFailed) throw new NotFound();
    throw err;
  }
}

export function lowerCaseHeaders(headers: Record<string, string | undefined> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(headers ?? {})) if (val !== undefined) out[k.toLowerCase()] = val;
  return out;
}
