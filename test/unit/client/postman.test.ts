import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { routes } from '#catalog';
import { collectionFile, documentFile, openApiText, postmanCollectionText } from '#scripts/generate-postman';

interface Request {
  method: string;
  url: { host: string[]; path: string[] };
  auth?: { type: string; bearer?: { value: string }[] };
}
interface Node {
  name: string;
  item?: Node[];
  request?: Request;
}

const collection = JSON.parse(readFileSync(collectionFile, 'utf8')) as { item: Node[]; auth: unknown; variable: { key: string; value: string }[] };

function requests(nodes: Node[]): Request[] {
  return nodes.flatMap((n) => [...(n.request ? [n.request] : []), ...requests(n.item ?? [])]);
}

/** `GET /api/v1/orders/{id}` as a catalog route reads, from a request's `/api/v1/orders/:id`. */
const routeKey = (r: Request) => `${r.method} /${r.url.path.map((p) => (p.startsWith(':') ? `{${p.slice(1)}}` : p)).join('/')}`;
const catalogKey = (r: (typeof routes)[number]) => `${r.method} ${r.root ? r.path : `/api${r.path}`}`;

describe('the Postman collection (clients/postman)', () => {
  const all = requests(collection.item);

  it('has a request for every route of the catalog, and none other', () => {
    expect(all.map(routeKey).sort()).toEqual(routes.map(catalogKey).sort());
  });

  it('takes the base URL and the bearer token from collection variables', () => {
    expect(collection.variable.map((v) => v.key)).toEqual(['baseUrl', 'bearerToken', 'brokerToken', 'adminToken', 'webhookUrl']);
    expect(collection.variable.find((v) => v.key === 'baseUrl')?.value).toBe('http://localhost:3000');
    expect(collection.auth).toEqual({ type: 'bearer', bearer: [{ key: 'token', value: '{{bearerToken}}', type: 'string' }] });
    for (const r of all) expect(r.url.host, routeKey(r)).toEqual(['{{baseUrl}}']);
    const publicKeys = routes.filter((r) => r.auth === 'public').map(catalogKey).sort();
    expect(all.filter((r) => r.auth?.type === 'noauth').map(routeKey).sort()).toEqual(publicKeys);
    // Every other request inherits the collection's bearer token, or names the broker's or the admin's.
    const tokenOf = (r: Request) => (r.auth === undefined ? 'bearerToken' : r.auth.type === 'bearer' ? r.auth.bearer![0].value.slice(2, -2) : r.auth.type);
    const counts = all.reduce<Record<string, number>>((n, r) => ({ ...n, [tokenOf(r)]: (n[tokenOf(r)] ?? 0) + 1 }), {});
    expect(counts.noauth + counts.bearerToken + counts.brokerToken + counts.adminToken).toBe(routes.length);
    for (const r of routes.filter((r) => r.auth !== 'public' && r.auth.roles?.includes('admin') && r.auth.roles.length === 1)) {
      expect(tokenOf(all.find((q) => routeKey(q) === catalogKey(r))!), catalogKey(r)).toBe('adminToken');
    }
  });

  it('is what the current document makes (npm run postman:generate after any change to a route)', async () => {
    expect(readFileSync(collectionFile, 'utf8') === (await postmanCollectionText()), 'run npm run postman:generate').toBe(true);
    expect(readFileSync(documentFile, 'utf8') === openApiText(), 'run npm run postman:generate').toBe(true);
  }, 60_000);

  it('sends no placeholder: every path variable, query value and body is an example or a variable an earlier request saved', () => {
    const text = JSON.stringify(all);
    expect(text).not.toMatch(/<string>|<number>|<integer>|<uuid>|<boolean>|<dateTime>/);
    const saved = new Set(collection.variable.map((v) => v.key));
    for (const line of JSON.stringify(collection.item).matchAll(/collectionVariables\.set\('(\w+)'/g)) saved.add(line[1]);
    const used = [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]);
    expect(used.filter((v) => !saved.has(v))).toEqual([]);
  });
});
