import { appendFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { routes } from '#catalog';
import type { RouteDef } from '#catalog/types';
import { serviceDocument } from '#http/system/openapi';
import { apiBase, compile, match } from '#catalog/routing';

/**
 * The contract check of the integration suite: every answer the twin gives through the test client
 * is held to the operation's declared answer in openapi.json (status declared, body valid against
 * its schema, a file's content type). A mismatch fails the test that made the request.
 *
 * CONTRACT_REPORT=<file> writes each mismatch to that file (one JSON line) instead of failing: for
 * surveying the suite while writing the schemas, never for a green run.
 */

type Json = Record<string, any>;

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
const compiled = routes.map((r) => compile(r));
const validators = new Map<string, ValidateFunction>();

const doc = () => serviceDocument() as Json;

export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

/** What is wrong with an answer to `method path`, or undefined when it keeps the contract. */
export function contractProblem(method: string, path: string, answer: Answer, redirected = false): string | undefined {
  const url = new URL(path, 'http://twin');
  const { route } = match(compiled, method.toUpperCase(), apiBase + url.pathname);
  // No route: the fallback's 404 / 405, or a path outside the API; nothing declared to hold it to.
  // 431: Node's HTTP server refused the headers before any route ran.
  if (!route || answer.status === 431) return undefined;
  const op = doc().paths[apiBase + route.path]?.[method.toLowerCase()] as Json | undefined;
  if (!op) return `${route.id}: no operation in openapi.json`;
  const responses = op.responses as Record<string, Json>;
  if (redirected) {
    return Object.keys(responses).some((s) => s.startsWith('3')) ? undefined : `${route.id}: answered with a redirect, and declares none`;
  }
  const declared = responses[String(answer.status)];
  if (!declared) return `${route.id}: status ${answer.status} is not declared (declared: ${Object.keys(responses).join(', ')}); body ${answer.text.slice(0, 300)}`;
  const content = declared.content as Record<string, { schema: Json }> | undefined;
  if (!content) {
    return answer.text === '' || answer.status >= 300 ? undefined : `${route.id}: ${answer.status} declares no body, and one came: ${answer.text.slice(0, 200)}`;
  }
  const type = (answer.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (!content[type]) return `${route.id}: ${answer.status} came as ${type || 'no content type'}, declared ${Object.keys(content).join(', ')}`;
  if (type !== 'application/json') return undefined;
  return schemaProblem(route, answer, content[type].schema);
}

function schemaProblem(route: RouteDef, answer: Answer, schema: Json): string | undefined {
  const key = `${route.id} ${answer.status}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(key, validate);
  }
  if (validate(answer.body)) return undefined;
  const errors = (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ' ' + JSON.stringify(e.params) : ''}`);
  return `${key}: the body does not match its schema: ${errors.join('; ')}; body ${answer.text.slice(0, 400)}`;
}

/** Fails (throws) when the answer breaks the contract; with CONTRACT_REPORT set, records it instead. */
export function checkContract(method: string, path: string, answer: Answer, redirected = false): void {
  const problem = contractProblem(method, path, answer, redirected);
  if (!problem) return;
  const report = process.env.CONTRACT_REPORT;
  if (report) {
    appendFileSync(report, JSON.stringify({ method, path, status: answer.status, problem, body: answer.text.length < 20_000 ? answer.body : '(large)' }) + '\n');
    return;
  }
  throw new Error(`Contract: ${method} ${path}: ${problem}`);
}

/**
 * What is wrong with a webhook delivery the twin sent, held to openapi.json's `webhooks` (the
 * envelope, its `data` and the signature headers), or undefined when it keeps the contract. The
 * test delivery (`webhook.test`) is not an event and is not documented there.
 */
export function deliveryProblem(headers: Record<string, string | string[] | undefined>, body: string): string | undefined {
  let envelope: { type?: string };
  try {
    envelope = JSON.parse(body);
  } catch {
    return `a delivery is not JSON: ${body.slice(0, 200)}`;
  }
  if (envelope.type === 'webhook.test') return undefined;
  const op = (doc().webhooks as Record<string, { post: Json }> | undefined)?.[envelope.type ?? '']?.post;
  if (!op) return `event ${envelope.type}: not in openapi.json's webhooks`;
  for (const p of op.parameters as { name: string; in: string; required?: boolean; schema: Json }[]) {
    const value = headers[p.name.toLowerCase()];
    if (typeof value !== 'string' && p.required === false) continue;
    if (typeof value !== 'string') return `event ${envelope.type}: header ${p.name} missing`;
  }
  const key = `webhook ${envelope.type}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(op.requestBody.content['application/json'].schema);
    validators.set(key, validate);
  }
  if (validate(envelope)) return undefined;
  const errors = (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ' ' + JSON.stringify(e.params) : ''}`);
  return `${key}: the delivery does not match its schema: ${errors.join('; ')}; body ${body.slice(0, 400)}`;
}
