import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { authorizer as authorizerDef, fallback, routes } from '../lambdas/catalog';

import { apiBase, compile, match, routeKey } from '../lambdas/routing';
import { errorResponse, type ApiEvent, type ApiResult } from '../lambdas/http/kit/route';
import type { AuthContext } from '../lambdas/http/kit/auth-context';
import { PayloadTooLarge } from '../lambdas/core/errors';
import { config } from '../lambdas/infra/config';
import { logger } from '../lambdas/http/kit/logger';
import { apiEvent, authorizerEvent, type IncomingCall } from './api-events';
import { lambdaContext } from './jobs';
import type { LocalBlobs } from './blobs';

/** API Gateway's own payload limit for HTTP APIs; route handlers apply their tighter limits. */
export const gatewayMaxBody = 10 * 1024 * 1024 + 64 * 1024;

type Handler = (event: unknown, context: Context) => Promise<unknown>;

export interface ServerDeps {
  loadHandler(module: string): Promise<Handler>;
  blobs: LocalBlobs;
}

const compiled = routes.map(compile);
const corsHeaders = 'Authorization,Content-Type,Idempotency-Key,X-Signature,X-Request-Id';

/**
 * The twin's API Gateway: matches the catalog's routes, runs the authorizer for protected ones
 * and invokes each route's handler with the same v2 event the cloud would send.
 */
export function createTwinServer(deps: ServerDeps): Server {
  return createServer((req, res) => {
    handle(deps, req, res).catch((err) => {
      logger.error('twin server failure', { error: err as Error });
      if (!res.headersSent) send(res, errorResponse(err, randomUUID()));
      else res.destroy();
    });
  });
}

async function handle(deps: ServerDeps, req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
  const method = (req.method ?? 'GET').toUpperCase();

  if (method === 'OPTIONS' && req.headers['access-control-request-method']) {
    req.resume();
    return preflight(res, req.headers.origin);
  }
  const body = await readBody(req, gatewayMaxBody);
  if (body === 'too-large') {
    const requestId = randomUUID();
    return send(res, withRequestId(errorResponse(new PayloadTooLarge('The request body is larger than 10 MB.'), requestId), requestId));
  }
  if (url.pathname.startsWith('/_blobs/') && method === 'GET') return serveBlob(deps.blobs, url, res);

  const call: IncomingCall = { method, url, headers: req.headers, body, sourceIp: req.socket.remoteAddress ?? '127.0.0.1' };
  const { route, params } = url.pathname.startsWith(apiBase) ? match(compiled, method, url.pathname) : { route: undefined, params: {} };
  if (!route) {
    const event = apiEvent(call, '$default', {});
    return send(res, (await invoke(deps, fallback.handler, fallback.id, event)) as ApiResult);
  }
  const event = apiEvent(call, routeKey(route), params);
  if (route.auth !== 'public') {
    const verdict = (await invoke(deps, authorizerDef.handler, authorizerDef.id, authorizerEvent(event))) as {
      isAuthorized: boolean;
      context?: AuthContext;
    };
    if (!verdict.isAuthorized) return send(res, { statusCode: 403, headers: { 'Content-Type': 'application/json' }, body: '{"message":"Forbidden"}' });
    event.requestContext.authorizer = { lambda: verdict.context ?? {} } as ApiEvent['requestContext']['authorizer'];
  }
  send(res, (await invoke(deps, route.handler, route.id, event)) as ApiResult);
}

async function invoke(deps: ServerDeps, module: string, functionName: string, event: unknown) {
  const handler = await deps.loadHandler(module);
  return handler(event, lambdaContext(functionName, (event as ApiEvent).requestContext?.requestId));
}

function readBody(req: IncomingMessage, max: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > max) {
      req.resume();
      return resolve('too-large');
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) over = true;
      else chunks.push(c);
    });
    req.on('end', () => resolve(over ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, result: ApiResult) {
  const headers = { ...(result.headers ?? {}) } as Record<string, string | number | boolean>;
  const body = result.body === undefined ? '' : result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body;
  const defined = Object.entries(headers).filter(([, v]) => v !== undefined && v !== null);
  res.writeHead(result.statusCode ?? 200, Object.fromEntries(defined.map(([k, v]) => [k, String(v)])));
  res.end(body);
}

function withRequestId(result: ApiResult, requestId: string): ApiResult {
  return { ...result, headers: { ...result.headers, 'X-Request-Id': requestId } };
}

function preflight(res: ServerResponse, origin: string | undefined) {
  const allowed = config.corsOrigins();
  const allowOrigin = allowed.includes('*') ? '*' : origin && allowed.includes(origin) ? origin : allowed[0];
  res.writeHead(204, {
    'Access-Control-Allow-Origin': allowOrigin,
    'Access-Control-Allow-Methods': 'GET,POST,PUT,PATCH,DELETE,OPTIONS',
    'Access-Control-Allow-Headers': corsHeaders,
    'Access-Control-Max-Age': '600',
    Vary: 'Origin',
  });
  res.end();
}

async function serveBlob(blobs: LocalBlobs, url: URL, res: ServerResponse) {
  const key = url.pathname.slice('/_blobs/'.length).split('/').map(decodeURIComponent).join('/');
  const opened = await blobs.open(key, url.searchParams).catch(() => ({ refused: 'The URL is not valid.' }));
  if ('refused' in opened) {
    res.writeHead(403, { 'Content-Type': 'application/xml' });
    res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>${opened.refused}</Message></Error>`);
    return;
  }
  const headers: Record<string, string> = { 'Content-Type': opened.contentType, 'Content-Length': String(opened.body.length) };
  if (opened.fileName) headers['Content-Disposition'] = `attachment; filename*=UTF-8''${encodeURIComponent(opened.fileName)}`;
  res.writeHead(200, headers);
  res.end(opened.body);
}

