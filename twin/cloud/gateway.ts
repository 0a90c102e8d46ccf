import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { compile, match } from '#catalog/routing';
import type { HttpMethod } from '#catalog/types';
import type { ApiEvent, ApiResult } from '#http/kit/route';
import { apiEvent, authorizerEvent, type IncomingCall } from '../api-events';
import { AuthorizerCache, forbiddenBody, identityHeader, unauthorizedBody, type Verdict } from '../authorizer-cache';
import { FunctionError, type Functions } from './sandbox';
import type { Deployment } from './template';

/*
 * The HTTP API of the template, played on this machine: its routes (RouteKey -> integration ->
 * function), its Lambda authorizer (simple responses), its CORS configuration, its stage's
 * throttling, and API Gateway's own answers (404 with no $default route, 403 from the
 * authorizer, 413 over 10 MB, 500 when a function fails, 503 when it times out). Each function
 * runs from its bundle in its own sandbox (sandbox.ts). The authorizer's identity source (a
 * request without it is answered 401 by the gateway) and its result cache
 * (AuthorizerResultTtlInSeconds, per identity) are played as the template sets them. Not played:
 * custom domains, CloudFront and its web ACL, access logs, mutual TLS.
 */

interface RouteEntry {
  method: HttpMethod;
  path: string;
  root: true;
  routeKey: string;
  functionName: string;
  authorizer?: string;
}

/** API Gateway's body limit for HTTP APIs; Lambda's synchronous payload limit. */
const maxBodyBytes = 10 * 1024 * 1024;
const maxPayloadBytes = 6 * 1024 * 1024;

export function apiRoutes(d: Deployment, now: () => number = () => Date.now()): {
  routes: RouteEntry[];
  defaultRoute?: RouteEntry;
  cors?: Record<string, any>;
  throttle?: { rate: number; burst: number };
  /** API Gateway's side of each authorizer function: its identity source and result cache. */
  caches: Map<string, AuthorizerCache>;
} {
  const integrations = new Map<string, string>();
  for (const r of d.resources('AWS::ApiGatewayV2::Integration')) {
    const p = d.properties(r);
    if (p.IntegrationType !== 'AWS_PROXY' || p.PayloadFormatVersion !== '2.0') throw new Error(`integration ${r.logicalId}: the lane plays AWS_PROXY 2.0 integrations only`);
    integrations.set(d.physicalId(r), String(p.IntegrationUri));
  }
  const authorizers = new Map<string, string>();
  const caches = new Map<string, AuthorizerCache>();
  for (const r of d.resources('AWS::ApiGatewayV2::Authorizer')) {
    const p = d.properties(r);
    if (p.AuthorizerType !== 'REQUEST' || !p.EnableSimpleResponses) throw new Error(`authorizer ${r.logicalId}: the lane plays REQUEST authorizers with simple responses only`);
    const arn = /functions\/(arn:[^/]+)\/invocations/.exec(String(p.AuthorizerUri))?.[1];
    authorizers.set(d.physicalId(r), arn!);
    const name = /:function:([^:/]+)/.exec(arn ?? '')?.[1];
    if (name) caches.set(name, new AuthorizerCache(((p.IdentitySource ?? []) as string[]).map(identityHeader), Number(p.AuthorizerResultTtlInSeconds ?? 0), now));
  }
  const routes: RouteEntry[] = [];
  let defaultRoute: RouteEntry | undefined;
  for (const r of d.resources('AWS::ApiGatewayV2::Route')) {
    const p = d.properties(r);
    const integration = String(p.Target).replace(/^integrations\//, '');
    const arn = integrations.get(integration);
    if (!arn) throw new Error(`route ${p.RouteKey}: its target ${p.Target} is no integration of the template`);
    const functionName = /:function:([^:/]+)/.exec(arn)![1];
    const authorizer = p.AuthorizationType === 'CUSTOM' ? /:function:([^:/]+)/.exec(authorizers.get(String(p.AuthorizerId)) ?? '')?.[1] : undefined;
    if (p.AuthorizationType === 'CUSTOM' && !authorizer) throw new Error(`route ${p.RouteKey}: its authorizer ${p.AuthorizerId} is not in the template`);
    if (p.RouteKey === '$default') {
      defaultRoute = { method: 'GET', path: '', root: true, routeKey: '$default', functionName, authorizer };
      continue;
    }
    const [method, path] = String(p.RouteKey).split(' ');
    routes.push({ method: method as HttpMethod, path, root: true, routeKey: String(p.RouteKey), functionName, authorizer });
  }
  const api = d.resources('AWS::ApiGatewayV2::Api')[0];
  const stage = d.resources('AWS::ApiGatewayV2::Stage')[0];
  const settings = stage ? d.properties(stage).DefaultRouteSettings : undefined;
  return {
    routes,
    defaultRoute,
    caches,
    cors: api ? d.properties(api).CorsConfiguration : undefined,
    throttle: settings?.ThrottlingRateLimit ? { rate: Number(settings.ThrottlingRateLimit), burst: Number(settings.ThrottlingBurstLimit ?? settings.ThrottlingRateLimit) } : undefined,
  };
}

const json = (statusCode: number, message: string): ApiResult => ({ statusCode, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ message }) });

export function createGateway(d: Deployment, fns: Functions): Server & { authorizerInvocations(): number } {
  const { routes, defaultRoute, cors, throttle, caches } = apiRoutes(d, () => Date.now() + fns.clock[0]);
  const compiled = routes.map((r) => compile<RouteEntry>(r));
  let tokens = throttle?.burst ?? 0;
  let refilled = Date.now();
  const admit = () => {
    if (!throttle) return true;
    const t = Date.now();
    tokens = Math.min(throttle.burst, tokens + ((t - refilled) / 1000) * throttle.rate);
    refilled = t;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };

  const invokeHttp = async (functionName: string, event: unknown): Promise<ApiResult> => {
    try {
      const result = (await fns.invoke(functionName, event)) as ApiResult | string | null;
      // A 2.0 payload that is not a response object is the body of a 200 (API Gateway's rule).
      if (!result || typeof result !== 'object' || !('statusCode' in result)) return { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(result) };
      return result;
    } catch (err) {
      if (err instanceof FunctionError && err.lambda.errorType === 'Sandbox.Timedout') return json(503, 'Service Unavailable');
      return json(500, 'Internal Server Error');
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
    const method = (req.method ?? 'GET').toUpperCase();
    const origin = req.headers.origin;
    const corsHeaders = cors && origin ? corsAnswer(cors, origin) : {};
    if (cors && method === 'OPTIONS' && req.headers['access-control-request-method']) {
      req.resume();
      res.writeHead(204, { ...corsHeaders, 'Access-Control-Allow-Methods': cors.AllowMethods.join(','), 'Access-Control-Allow-Headers': cors.AllowHeaders.join(','), 'Access-Control-Max-Age': String(cors.MaxAge ?? 0) });
      return res.end();
    }
    const body = await readBody(req);
    if (body === 'too-large') return send(res, json(413, 'Request Entity Too Large'), corsHeaders);
    if (!admit()) return send(res, json(429, 'Too Many Requests'), corsHeaders);
    const call: IncomingCall = { method, url, headers: req.headers, body, sourceIp: req.socket.remoteAddress ?? '127.0.0.1' };
    const { route, params } = match<RouteEntry>(compiled, method as HttpMethod, url.pathname);
    const entry = route ?? defaultRoute;
    if (!entry) return send(res, json(404, 'Not Found'), corsHeaders);
    const event = apiEvent(call, entry.routeKey, route ? params : {});
    if (Buffer.byteLength(JSON.stringify(event)) > maxPayloadBytes) return send(res, json(413, 'Request Entity Too Large'), corsHeaders);
    if (entry.authorizer) {
      const cache = caches.get(entry.authorizer)!;
      const identity = cache.identity(req.headers);
      if (!identity) return send(res, { statusCode: 401, headers: { 'Content-Type': 'application/json' }, body: unauthorizedBody }, corsHeaders);
      let verdict: Verdict | null;
      try {
        verdict = await cache.verdict(identity, async () => (await fns.invoke(entry.authorizer!, authorizerEvent(event))) as Verdict);
      } catch {
        return send(res, json(500, 'Internal Server Error'), corsHeaders);
      }
      if (!verdict?.isAuthorized) return send(res, { statusCode: 403, headers: { 'Content-Type': 'application/json' }, body: forbiddenBody }, corsHeaders);
      event.requestContext.authorizer = { lambda: verdict.context ?? {} } as ApiEvent['requestContext']['authorizer'];
    }
    send(res, await invokeHttp(entry.functionName, event), corsHeaders);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, json(500, 'Internal Server Error'), {});
      else res.destroy();
    });
  });
  return Object.assign(server, { authorizerInvocations: () => [...caches.values()].reduce((n, c) => n + c.invocations, 0) });
}

function corsAnswer(cors: Record<string, any>, origin: string): Record<string, string> {
  const origins = cors.AllowOrigins as string[];
  if (!origins.includes('*') && !origins.includes(origin)) return {};
  return {
    'Access-Control-Allow-Origin': origins.includes('*') ? '*' : origin,
    ...(cors.ExposeHeaders?.length ? { 'Access-Control-Expose-Headers': (cors.ExposeHeaders as string[]).join(',') } : {}),
    Vary: 'Origin',
  };
}

function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length'] ?? 0) > maxBodyBytes) {
      req.resume();
      return resolve('too-large');
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= maxBodyBytes) chunks.push(c);
    });
    req.on('end', () => resolve(size > maxBodyBytes ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, result: ApiResult, extra: Record<string, string>) {
  const headers: Record<string, string> = { ...extra };
  for (const [k, v] of Object.entries(result.headers ?? {})) if (v !== undefined && v !== null) headers[k] = String(v);
  const body = result.body === undefined ? '' : result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body;
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(body);
}
