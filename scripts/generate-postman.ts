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
  // Public routes send no token; each request keeps its success examples (the failures are in the reference).
  const paths = doc.paths as Record<string, Record<string, { security?: unknown[] }>>;
  const operation = (method: string, path: string[]) => paths['/' + path.map((p) => (p.startsWith(':') ? `{${p.slice(1)}}` : p)).join('/')]?.[method.toLowerCase()];
  const visit = (items: unknown[]) => {
    for (const node of items as { item?: unknown[]; request?: { method: string; url: { path: string[] }; auth?: unknown }; response?: { code: number }[] }[]) {
      if (node.item) visit(node.item);
      if (!node.request) continue;
      const op = operation(node.request.method, node.request.url.path);
      if (op?.security && op.security.length === 0) node.request.auth = { type: 'noauth' };
      node.response = (node.response ?? []).filter((r) => r.code >= 200 && r.code < 300);
    }
  };
  visit(stable.item);
  stable.info = { ...stable.info, description: 'Every route of the Despacho API, generated from GET /api/openapi.json by `npm run postman:generate`. Set `baseUrl` (the twin: http://localhost:3000) and `bearerToken` (an API token) in the collection variables.' };
  stable.auth = { type: 'bearer', bearer: [{ key: 'token', value: '{{bearerToken}}', type: 'string' }] };
  stable.variable = [
    { key: 'baseUrl', value: defaultBaseUrl, type: 'string', description: 'The service origin: the twin, or a stage ApiUrl without /api' },
    { key: 'bearerToken', value: '', type: 'string', description: 'An API token (Authorization: Bearer)' },
  ];
  return JSON.stringify(stable, null, 2) + '\n';
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  mkdirSync(dirname(collectionFile), { recursive: true });
  writeFileSync(collectionFile, await postmanCollectionText());
  writeFileSync(documentFile, openApiText());
  console.log(`wrote ${collectionFile} and ${documentFile}`);
}
