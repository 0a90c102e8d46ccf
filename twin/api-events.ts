import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { ApiEvent } from '#http/kit/route';
import type { AuthContext } from '#http/kit/auth-context';
import { now } from '#infra/clock';

/** The parts of an HTTP request API Gateway turns into an event. */
export interface IncomingCall {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: Buffer;
  sourceIp: string;
}

const textTypes = /^(application\/(json|[\w.+-]+\+json|xml|x-www-form-urlencoded|javascript)|text\/)/i;

function flatHeaders(h: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;
  return out;
}

function query(url: URL): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const key of new Set(url.searchParams.keys())) out[key] = url.searchParams.getAll(key).join(',');
  return Object.keys(out).length ? out : undefined;
}

function requestContext(call: IncomingCall, routeKey: string, requestId: string) {
  const at = now();
  return {
    accountId: '000000000000',
    apiId: 'twin',
    domainName: call.headers.host ?? 'localhost',
    domainPrefix: 'localhost',
    http: {
      method: call.method,
      path: call.url.pathname,
      protocol: 'HTTP/1.1',
      sourceIp: call.sourceIp,
      userAgent: String(call.headers['user-agent'] ?? ''),
    },
    requestId,
    routeKey,
    stage: '$default',
    time: at.toUTCString(),
    timeEpoch: at.getTime(),
  };
}

/** The payload-v2 event API Gateway's HTTP API sends a Lambda integration. */
export function apiEvent(call: IncomingCall, routeKey: string, pathParameters: Record<string, string>, authorizer?: AuthContext): ApiEvent {
  const headers = flatHeaders(call.headers);
  const isText = textTypes.test(headers['content-type'] ?? '');
  const hasBody = call.body.length > 0;
  const requestId = randomUUID();
  return {
    version: '2.0',
    routeKey,
    rawPath: call.url.pathname,
    rawQueryString: call.url.search.slice(1),
    headers,
    queryStringParameters: query(call.url),
    pathParameters: Object.keys(pathParameters).length ? pathParameters : undefined,
    body: hasBody ? (isText ? call.body.toString('utf8') : call.body.toString('base64')) : undefined,
    isBase64Encoded: hasBody && !isText,
    requestContext: { ...requestContext(call, routeKey, requestId), authorizer: { lambda: authorizer ?? {} }, authentication: null },
  } as unknown as ApiEvent;
}

/** The REQUEST authorizer event (payload v2) for the same call. */
export function authorizerEvent(event: ApiEvent): APIGatewayRequestAuthorizerEventV2 {
  const { authorizer: _omit, ...rc } = event.requestContext as ApiEvent['requestContext'] & { authorizer?: unknown };
  return {
    version: '2.0',
    type: 'REQUEST',
    routeArn: `arn:aws:execute-api:local:000000000000:twin/$default/${event.routeKey.replace(' ', '')}`,
    identitySource: [],
    routeKey: event.routeKey,
    rawPath: event.rawPath,
    rawQueryString: event.rawQueryString,
    cookies: [],
    headers: event.headers as Record<string, string>,
    queryStringParameters: event.queryStringParameters as Record<string, string> | undefined,
    pathParameters: event.pathParameters as Record<string, string> | undefined,
    stageVariables: {},
    requestContext: rc as APIGatewayRequestAuthorizerEventV2['requestContext'],
  };
}
