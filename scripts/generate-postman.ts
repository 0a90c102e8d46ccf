/**
 * Writes clients/postman/despacho.postman_collection.json, a Postman collection (v2.1) of every
 * route, from the OpenAPI document the service serves (the same function as GET /api/openapi.json),
 * with openapi-to-postmanv2: one folder per tag, the base URL in the collection variable `baseUrl`
 * (the twin's, http://localhost:3000, by default) and the bearer token in `bearerToken`, sent as
 * `Authorization: Bearer {{bearerToken}}` by every route that needs one (the public ones send none).
 * Beside it, clients/openapi.json, the document itself (what `npm run mock` serves).
 * `npm run postman:generate`; test/unit/client/postman.test.ts fails while either committed file
 * is stale or the collection misses a route of the catalog.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { serviceDocument } from '#http/system/openapi';
import { prng } from '#twin/prng';
import { projectRoot } from '#lib/functions';
import { flowOrder, flowSteps, type FlowStep } from './postman-flow';

/**
 * The converter fakes example bodies with Math.random, and its faker keeps the Math.random it
 * finds when it loads: both see a seeded one, started afresh for each conversion, so the same
 * document gives the same file (the committed one is checked against a fresh one).
 */
let seeded = prng(34);
const seededRandom = () => seeded();
const systemRandom = Math.random;
Math.random = seededRandom;
const { default: Converter } = await import('openapi-to-postmanv2');
Math.random = systemRandom;

export const collectionFile = join(projectRoot, 'clients', 'postman', 'despacho.postman_collection.json');
/** The document itself, for tools that read a file: `npm run mock` (Prism), other generators. */
export const documentFile = join(projectRoot, 'clients', 'openapi.json');

export function openApiText(): string {
  return JSON.stringify(serviceDocument()) + '\n';
}

export const defaultBaseUrl = 'http://localhost:3000';

interface Collection {
  info: Record<string, unknown>;
  item: unknown[];
  auth?: unknown;
  variable?: { key: string; value: string; type?: string; description?: string }[];
}

/**
 * The document as the converter reads it: without the `$schema` of each inlined 2020-12 schema
 * (its faker reads draft 4), and with an example on every date and timestamp (it fakes those
 * from the clock, which would change the file on each run).
 */
function forConversion(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(forConversion);
  if (!node || typeof node !== 'object') return node;
  const out = Object.fromEntries(Object.entries(node).filter(([k]) => k !== '$schema').map(([k, v]) => [k, forConversion(v)])) as Record<string, unknown>;
  if (out.example === undefined && out.examples === undefined) {
    if (out.format === 'date-time') out.example = '2026-11-20T10:00:00.000Z';
    if (out.format === 'date') out.example = '2026-11-20';
  }
  return out;
}

interface Operation {
  operationId: string;
  security?: unknown[];
  parameters?: { name: string; in: string; example?: unknown }[];
  requestBody?: { content: Record<string, { example?: unknown }> };
  'x-success-status': number;
  responses: Record<string, { content?: Record<string, { example?: unknown }> }>;
}

interface PostmanItem {
  name: string;
  item?: PostmanItem[];
  request?: {
    method: string;
    url: { path: string[]; host: string[]; query?: { key: string; value: string; disabled?: boolean; description?: unknown }[]; variable?: { key: string; value: string; description?: unknown }[] };
    header?: { key: string; value: string; disabled?: boolean; description?: unknown }[];
    body?: { mode: string; raw?: string; options?: unknown; formdata?: unknown[] };
    auth?: unknown;
  };
  response?: { code: number }[];
  event?: { listen: 'prerequest' | 'test'; script: { type: 'text/javascript'; exec: string[] } }[];
}

/** Sets the value at a dotted path (`items.0.id`) of a JSON value. */
function setAt(target: unknown, dotted: string, value: unknown): void {
  const keys = dotted.split('.');
  let node = target as Record<string, unknown>;
  for (const k of keys.slice(0, -1)) node = node[k] as Record<string, unknown>;
  node[keys.at(-1)!] = value;
}

/** The value at a dotted path of a JSON value, or undefined. */
function getAt(target: unknown, dotted: string): unknown {
  return dotted.split('.').reduce<unknown>((node, k) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[k] : undefined), target);
}

/**
 * One request made to work on its first Send: the route's example as path variables, query and
 * body (no placeholder), the flow's variables in place of the ids earlier requests made, its
 * token, its scripts (a test of the documented success status; the ids it saves).
 */
function applyExample(node: PostmanItem, op: Operation, step: FlowStep): void {
  const req = node.request!;
  if (op.security && op.security.length === 0) req.auth = { type: 'noauth' };
  else if (step.as) req.auth = { type: 'bearer', bearer: [{ key: 'token', value: `{{${step.as}}}`, type: 'string' }] };
  const params = op.parameters ?? [];
  const example = (name: string, where: string) => params.find((p) => p.name === name && p.in === where)?.example;
  for (const v of req.url.variable ?? []) {
    const variable = step.path?.[v.key];
    v.value = variable ? `{{${variable}}}` : String(example(v.key, 'path') ?? v.value);
  }
  req.url.query = params
    .filter((p) => p.in === 'query' && (p.example !== undefined || step.query?.[p.name]))
    .map((p) => ({ key: p.name, value: step.query?.[p.name] ? `{{${step.query[p.name]}}}` : String(p.example) }));
  // The optional headers the converter lists disabled with placeholders: only the flow's are sent.
  req.header = (req.header ?? []).filter((h) => !h.disabled);
  for (const [key, value] of Object.entries(step.headers ?? {})) req.header.push({ key, value });
  const content = op.requestBody ? Object.entries(op.requestBody.content)[0] : undefined;
  if (content && req.body?.mode === 'formdata') {
    // A form: the example's fields as text, and the flow's files from clients/postman.
    const fields = Object.entries((content[1].example ?? {}) as Record<string, unknown>)
      .filter(([key]) => !step.files?.[key])
      .map(([key, value]) => ({ key, value: String(value), type: 'text' }));
    const files = Object.entries(step.files ?? {}).map(([key, src]) => ({ key, src, type: 'file' }));
    req.body = { mode: 'formdata', formdata: [...fields, ...files] };
  }
  if (content && content[1].example !== undefined && req.body?.mode === 'raw') {
    const [type, { example: sample }] = content;
    if (typeof sample === 'string') req.body.raw = sample;
    else {
      const body = structuredClone(sample);
      const holes: [string, string, boolean][] = [];
      for (const [at, variable] of Object.entries(step.body ?? {})) {
        const marker = `@@${variable}@@`;
        holes.push([marker, variable, typeof getAt(body, at) !== 'string']);
        setAt(body, at, marker);
      }
      let raw = JSON.stringify(body, null, 2);
      for (const [marker, variable, bare] of holes) raw = raw.replace(`"${marker}"`, bare ? `{{${variable}}}` : `"{{${variable}}}"`);
      req.body.raw = raw;
    }
    req.header = req.header.filter((h) => h.key.toLowerCase() !== 'content-type');
    req.header.push({ key: 'Content-Type', value: type });
  }
  const status = op['x-success-status'];
  // Its saved example: the success answer the twin gave to this very request.
  // (none where the twin's answer is not recorded, as the document itself: no schema-made placeholders).
  const json = op.responses[status]?.content?.['application/json'];
  node.response = (node.response ?? []).filter((r) => r.code === status && (!json || json.example !== undefined));
  const test = [`pm.test('answers ${status}', () => pm.response.to.have.status(${status}));`];
  const saves = Object.entries(step.saves ?? {});
  if (saves.length) {
    test.push('const answer = pm.response.json();');
    for (const [variable, at] of saves) {
      const value = at.split('.').reduce((e, k) => (/^\d+$/.test(k) ? `${e}[${k}]` : `${e}.${k}`), 'answer');
      // An object (a presigned form's fields) is kept as JSON text.
      test.push(`pm.collectionVariables.set('${variable}', typeof ${value} === 'object' ? JSON.stringify(${value}) : ${value});`);
    }
  }
  node.event = [
    ...(step.prerequest ? [{ listen: 'prerequest' as const, script: { type: 'text/javascript' as const, exec: step.prerequest } }] : []),
    { listen: 'test' as const, script: { type: 'text/javascript' as const, exec: test } },
  ];
}

/** The collection for the current document, as the text committed. */
export async function postmanCollectionText(): Promise<string> {
  const doc = forConversion(serviceDocument()) as Record<string, unknown>;
  doc.servers = [{ url: defaultBaseUrl, description: 'The local twin (npm start); a stage: its ApiUrl without /api' }];
  const convert = promisify(Converter.convert) as (input: unknown, options: Record<string, unknown>) => Promise<{ result: boolean; reason?: string; output: { data: Collection }[] }>;
  seeded = prng(34);
  Math.random = seededRandom;
  const out = await convert(
    { type: 'json', data: doc },
    {
      folderStrategy: 'Tags',
      requestNameSource: 'Fallback',
      parametersResolution: 'Example',
      enableOptionalParameters: false,
      includeWebhooks: false,
      alwaysInheritAuthentication: true,
      indentCharacter: 'Space',
    },
  );
  Math.random = systemRandom;
  if (!out.result) throw new Error(`openapi-to-postmanv2: ${out.reason}`);
  const collection = out.output[0].data;
  // Stable between runs (the converter gives every item a fresh id), and the two variables named.
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (node && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).filter(([k]) => k !== 'id' && k !== '_postman_id').map(([k, v]) => [k, strip(v)]));
    }
    return node;
  };
  const stable = strip(collection) as Collection;
  // Public routes send no token; each request carries its route's example, the ids earlier
  // requests saved (scripts/postman-flow.ts), and its success answer recorded from the twin.
  const paths = doc.paths as Record<string, Record<string, Operation>>;
  const operation = (method: string, path: string[]) => paths['/' + path.map((p) => (p.startsWith(':') ? `{${p.slice(1)}}` : p)).join('/')]?.[method.toLowerCase()];
  const requests: PostmanItem[] = [];
  const visit = (items: PostmanItem[]) => {
    for (const node of items) {
      if (node.item) visit(node.item);
      if (node.request) requests.push(node);
    }
  };
  visit(stable.item as PostmanItem[]);
  for (const node of requests) {
    const op = operation(node.request!.method, node.request!.url.path)!;
    applyExample(node, op, flowSteps[op.operationId] ?? {});
  }
  // Folders and requests in the order a top-to-bottom run needs.
  const rank = (id: string) => (flowOrder.includes(id) ? flowOrder.indexOf(id) : flowOrder.length);
  const idOf = (node: PostmanItem) => operation(node.request!.method, node.request!.url.path)!.operationId;
  const folders = stable.item as PostmanItem[];
  for (const f of folders) f.item?.sort((a, b) => rank(idOf(a)) - rank(idOf(b)));
  folders.sort((a, b) => Math.min(...(a.item ?? []).map((n) => rank(idOf(n)))) - Math.min(...(b.item ?? []).map((n) => rank(idOf(n)))));
  // The tariff import replaces the whole table (the built-in one included): its own folder, last,
  // so the requests before it classify against the built-in table.
  const admin = folders.find((f) => f.item?.some((n) => idOf(n) === 'AdminTariffImport'));
  const tariffImport = admin?.item?.find((n) => idOf(n) === 'AdminTariffImport');
  if (admin && tariffImport) {
    admin.item = admin.item!.filter((n) => n !== tariffImport);
    folders.push({ name: 'admin: replace the tariff table (last: it replaces the built-in one)', item: [tariffImport] });
  }
  stable.info = {
    ...stable.info,
    description:
      'Every route of the Despacho API, generated from GET /api/openapi.json by `npm run postman:generate`. Set `baseUrl` (the twin: http://localhost:3000) and `bearerToken` (a partner token); `brokerToken` for the review and document decisions, `adminToken` for the operator routes. Every request carries a working example: run the collection from top to bottom on a fresh twin (Collection Runner, with a delay of 2000 ms so each manifest is processed before the next request reads it), and each request saves the ids later ones use. The last request replaces the tariff table with its one example row.',
  };
  stable.auth = { type: 'bearer', bearer: [{ key: 'token', value: '{{bearerToken}}', type: 'string' }] };
  stable.variable = [
    { key: 'baseUrl', value: defaultBaseUrl, type: 'string', description: 'The service origin: the twin, or a stage ApiUrl without /api' },
    { key: 'bearerToken', value: '', type: 'string', description: 'A partner API token (Authorization: Bearer) with the scopes of the requests you send' },
    { key: 'brokerToken', value: '', type: 'string', description: "A broker's token: document decisions, the review, closing a batch" },
    { key: 'adminToken', value: '', type: 'string', description: "The operator's token: the admin folder (on the twin, ADMIN_TOKEN)" },
    { key: 'webhookUrl', value: 'http://127.0.0.1:4000/hooks', type: 'string', description: 'Where the example subscription delivers (your receiver, or `npm run cli -- listen`)' },
  ];
  return JSON.stringify(stable, null, 2) + '\n';
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  mkdirSync(dirname(collectionFile), { recursive: true });
  writeFileSync(collectionFile, await postmanCollectionText());
  writeFileSync(documentFile, openApiText());
  console.log(`wrote ${collectionFile} and ${documentFile}`);
}
