import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Duplex } from 'node:stream';
import type { Context } from 'aws-lambda';
import { authorizer as authorizerDef, fallback, routes } from '#catalog';

import { compile, match, routeKey } from '#catalog/routing';
import { errorResponse, type ApiEvent, type ApiResult } from '#http/kit/route';
import type { AuthContext } from '#http/kit/auth-context';
import { BadRequest, PayloadTooLarge, UnsupportedMediaType, ValidationFailed } from '#core/errors';
import { humanSize, maxDocumentBytes } from '#core/documents/files';
import { maxManifestFileBytes } from '#core/manifest-files/files';
import { parseMultipart } from '#http/kit/multipart';
import { config } from '#shared/config';
import { logger } from '#shared/logger';
import { recordMetric } from '#shared/metrics';
import { corsPolicy } from '#http/kit/cors';
import { apiEvent, authorizerEvent, type IncomingCall } from './api-events';
import { AuthorizerCache, forbiddenBody, identityHeader, twinUnauthorizedBody, type Verdict } from './authorizer-cache';
import { now } from '#infra/clock';
import { lambdaContext } from './jobs';
import type { LocalBlobs, UploadAnswer } from './blobs';

/**
 * The largest request body the twin reads: a JSON body carrying a 10 MiB document in base64, plus
 * 64 KiB for the rest of the body. This is looser than the cloud: API Gateway's HTTP APIs stop at
 * 10 MB and a Lambda's request payload at 6 MB, so base64 uploads are for small files and big
 * files take the presigned path (`/_blobs-upload` here, S3's POST Object in the cloud). Route
 * handlers apply their own, tighter limits.
 */
export const gatewayMaxBody = 4 * Math.ceil(maxDocumentBytes / 3) + 64 * 1024;

/** The twin's storage takes presigned POSTs up to the largest file a policy allows (40 MiB stored manifests) plus the form. */
export const storageMaxBody = maxManifestFileBytes + 64 * 1024;

type Handler = (event: unknown, context: Context) => Promise<unknown>;

export interface ServerDeps {
  loadHandler(module: string): Promise<Handler>;
  blobs: LocalBlobs;
  /** The proofs of delivery's store (issue 44), served under `/_proofs/`. */
  proofs: LocalBlobs;
  /** API Gateway's side of the authorizer (its identity source and cache); `twinAuthorizerCache()` by default. */
  authorizerCache?: AuthorizerCache;
}

/** The catalog's identity source and cache time, on the twin's clock. */
export function twinAuthorizerCache(): AuthorizerCache {
  return new AuthorizerCache(authorizerDef.identitySource.map(identityHeader), authorizerDef.cacheTtlSeconds, () => now().getTime());
}

const compiled = routes.map(compile);

/**
 * The twin's API Gateway: matches the catalog's routes, runs the authorizer for protected ones
 * and invokes each route's handler with the same v2 event the cloud would send.
 */
export function createTwinServer(deps: ServerDeps): Server {
  const cache = deps.authorizerCache ?? twinAuthorizerCache();
  const server = createServer((req, res) => {
    handle(deps, cache, req, res).catch((err) => {
      logger.error('twin server failure', { error: err as Error });
      if (!res.headersSent) send(res, errorResponse(err, randomUUID()));
      else res.destroy();
    });
  });
  server.on('clientError', answerClientError);
  return server;
}

/**
 * A request Node's HTTP parser refuses before any route sees it: a request line and headers over
 * its 16 KiB (a path of 100,000 characters), or bytes that are not HTTP. Node would answer a bare
 * 431 or 400; the twin answers with the service's error body, as a route would.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex) {
  if (err.code === 'ECONNRESET' || !socket.writable) return socket.destroy();
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
  const body = JSON.stringify({
    success: false,
    message: tooLarge ? 'The request line and headers are larger than 16 KiB.' : 'The request is not valid HTTP.',
    error: tooLarge ? 'headers_too_large' : 'bad_request',
  });
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/**
 * The request's headers as API Gateway hands them to a function: a header sent twice is one value,
 * the two joined with a comma (Node keeps only the first `Authorization`, and the twin acted on it
 * where a stage refuses the joined pair).
 */
function gatewayHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, values] of Object.entries(req.headersDistinct)) if (values?.length) out[name] = values.join(',');
  return out;
}

async function handle(deps: ServerDeps, cache: AuthorizerCache, req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
  const method = (req.method ?? 'GET').toUpperCase();

  if (method === 'OPTIONS' && req.headers['access-control-request-method']) {
    req.resume();
    return preflight(res, req.headers.origin);
  }
  const isUpload = url.pathname === '/_blobs-upload' && method === 'POST';
  const body = await readBody(req, isUpload ? storageMaxBody : gatewayMaxBody);
  if (body === 'aborted') {
    // The client hung up before its body was whole: nobody is left to answer, and nothing failed here.
    const { route } = match(compiled, method, url.pathname);
    logger.warn('client closed the request before its body was read', { route: route ? routeKey(route) : `${method} ${url.pathname.slice(0, 128)}` });
    return;
  }
  if (body === 'too-large') {
    if (isUpload) return sendUploadAnswer(res, req.headers.origin, { status: 400, code: 'EntityTooLarge', message: 'Your proposed upload exceeds the maximum allowed size.' });
    const requestId = randomUUID();
    return send(res, withRequestId(errorResponse(new PayloadTooLarge(`The request body is larger than ${humanSize(gatewayMaxBody)}.`), requestId), requestId));
  }
  if (url.pathname.startsWith('/_blobs/') && method === 'GET') return serveBlob(deps.blobs, url, res);
  if (url.pathname.startsWith('/_proofs/') && method === 'GET') return serveBlob(deps.proofs, url, res);
  if (isUpload) return sendUploadAnswer(res, req.headers.origin, await acceptUpload(deps.blobs, req, body));

  const headers = gatewayHeaders(req);
  const call: IncomingCall = { method, url, headers, body, sourceIp: req.socket.remoteAddress ?? '127.0.0.1' };
  const { route, params } = match(compiled, method, url.pathname);
  if (!route) {
    const event = apiEvent(call, '$default', {});
    return answer(res, 'fallback', (await invoke(deps, fallback.handler, fallback.id, event)) as ApiResult);
  }
  const event = apiEvent(call, routeKey(route), params);
  if (route.auth !== 'public') {
    const identity = cache.identity(headers);
    if (!identity) return answer(res, route.tag, gatewayAnswer(401, twinUnauthorizedBody, req.headers.origin));
    const verdict = await cache.verdict(identity, async () => (await invoke(deps, authorizerDef.handler, authorizerDef.id, authorizerEvent(event))) as Verdict);
    if (!verdict.isAuthorized) return answer(res, route.tag, gatewayAnswer(403, forbiddenBody, req.headers.origin));
    event.requestContext.authorizer = { lambda: (verdict.context ?? {}) as AuthContext } as ApiEvent['requestContext']['authorizer'];
  }
  answer(res, route.tag, (await invoke(deps, route.handler, route.id, event)) as ApiResult);
}

/**
 * Sends a route's answer and counts it by route group (the catalog tag) and status class, as API
 * Gateway and the functions' own metrics show it in AWS (the twin's GET /api/v1/admin/metrics).
 */
function answer(res: ServerResponse, group: string, result: ApiResult) {
  recordMetric('ApiRequests', 1, { group, by: `${Math.floor((result.statusCode ?? 200) / 100)}xx` });
  send(res, result);
}

async function invoke(deps: ServerDeps, module: string, functionName: string, event: unknown) {
  const handler = await deps.loadHandler(module);
  return handler(event, lambdaContext(functionName, (event as ApiEvent).requestContext?.requestId));
}

/**
 * The request body, `too-large` past `max`, or `aborted` when the client hung up before sending
 * all of it (Node reports that as an `aborted` error, or only closes the request).
 */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | 'too-large' | 'aborted'> {
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
    req.on('error', (err: NodeJS.ErrnoException) => (!req.complete && err.code === 'ECONNRESET' ? resolve('aborted') : reject(err)));
    req.on('close', () => {
      if (!req.complete) resolve('aborted');
    });
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

/** An answer of API Gateway itself (no function ran): its JSON body, its request id header, and the API's CORS headers. */
function gatewayAnswer(status: number, body: string, origin: string | undefined): ApiResult {
  const allowed = config.corsOrigins();
  const allowOrigin = allowed.includes('*') ? '*' : origin && allowed.includes(origin) ? origin : undefined;
  return {
    statusCode: status,
    headers: { 'Content-Type': 'application/json', 'apigw-requestid': randomUUID(), ...(allowOrigin ? { 'Access-Control-Allow-Origin': allowOrigin, Vary: 'Origin' } : {}) },
    body,
  };
}

function preflight(res: ServerResponse, origin: string | undefined) {
  const allowed = config.corsOrigins();
  const allowOrigin = allowed.includes('*') ? '*' : origin && allowed.includes(origin) ? origin : allowed[0];
  res.writeHead(204, {
    'Access-Control-Allow-Origin': allowOrigin,
    'Access-Control-Allow-Methods': corsPolicy.allowMethods.join(','),
    'Access-Control-Allow-Headers': corsPolicy.allowHeaders.join(','),
    'Access-Control-Max-Age': String(corsPolicy.maxAgeSeconds),
    Vary: 'Origin',
  });
  res.end();
}

/** The blob key a download path names; undefined when its percent-encoding is malformed. */
function blobKeyOf(url: URL, prefix: string): string | undefined {
  try {
    return url.pathname.slice(prefix.length + 1).split('/').map(decodeURIComponent).join('/');
  } catch {
    return undefined;
  }
}

async function serveBlob(blobs: LocalBlobs, url: URL, res: ServerResponse) {
  const key = blobKeyOf(url, blobs.place.urlPath);
  if (key === undefined) {
    // As S3 answers a path it cannot decode.
    res.writeHead(400, { 'Content-Type': 'application/xml' });
    res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidURI</Code><Message>Couldn't parse the specified URI.</Message></Error>`);
    return;
  }
  const opened = await blobs.open(key, url.searchParams).catch(() => ({ refused: 'The URL is not valid.' }));
  if ('refused' in opened) {
    res.writeHead(403, { 'Content-Type': 'application/xml' });
    res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>${opened.refused}</Message></Error>`);
    return;
  }
  const headers: Record<string, string> = { 'Content-Type': opened.contentType, 'Content-Length': String(opened.size) };
  if (opened.contentEncoding) headers['Content-Encoding'] = opened.contentEncoding;
  if (opened.fileName) headers['Content-Disposition'] = `attachment; filename*=UTF-8''${encodeURIComponent(opened.fileName)}`;
  res.writeHead(200, headers);
  await pipeline(opened.body, res);
}

/**
 * S3's POST Object, as the twin does it: a multipart form of the presigned fields, the `file` last
 * (fields after it are ignored, as S3 ignores them), checked by the blob store.
 */
async function acceptUpload(blobs: LocalBlobs, req: IncomingMessage, body: Buffer): Promise<UploadAnswer> {
  let form;
  try {
    // Any file the body can hold is parsed; the policy's own size limit is the store's check.
    form = await parseMultipart(body, req.headers['content-type'] ?? '', { fileBytes: storageMaxBody, files: 1, fields: 20 });
  } catch (err) {
    if (err instanceof PayloadTooLarge) return { status: 400, code: 'EntityTooLarge', message: 'Your proposed upload exceeds the maximum allowed size.' };
    if (err instanceof UnsupportedMediaType) {
      return { status: 412, code: 'PreconditionFailed', message: 'Bucket POST must be of the enclosure-type multipart/form-data.' };
    }
    if (err instanceof BadRequest || err instanceof ValidationFailed) {
      return { status: 400, code: 'MalformedPOSTRequest', message: 'The body of your POST request is not well-formed multipart/form-data.' };
    }
    throw err;
  }
  const fields = { ...form.fields };
  for (const name of form.fieldsAfterFile) delete fields[name];
  const file = form.files.find((f) => f.field === 'file');
  if (!file || form.files.length !== 1) return { status: 400, code: 'InvalidArgument', message: 'POST requires exactly one file upload per request.' };
  if (!Object.keys(fields).some((k) => k.toLowerCase() === 'key')) return { status: 400, code: 'InvalidArgument', message: "Bucket POST must contain a field named 'key'." };
  return blobs.acceptUpload(fields, { data: file.data, mimeType: file.mimeType });
}

function sendUploadAnswer(res: ServerResponse, origin: string | undefined, answer: UploadAnswer) {
  const allowed = config.corsOrigins();
  const allowOrigin = allowed.includes('*') ? '*' : origin && allowed.includes(origin) ? origin : allowed[0];
  const cors = { 'Access-Control-Allow-Origin': allowOrigin, Vary: 'Origin' };
  if (answer.status < 300) {
    res.writeHead(answer.status, cors);
    return res.end();
  }
  res.writeHead(answer.status, { ...cors, 'Content-Type': 'application/xml' });
  res.end(
    `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${xml(answer.code ?? 'InvalidRequest')}</Code><Message>${xml(answer.message ?? '')}</Message></Error>`,
  );
}

function xml(text: string): string {
  return text.replace(/[<>&]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;' })[c]!);
}
