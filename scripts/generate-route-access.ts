/**
 * Writes lambdas/catalog/access.json: what the authorizer and the fallback need of each route
 * (method, path, roles and scopes, rate group), as plain data, so they do not import the catalog
 * and with it every route's schemas. Never edited by hand: `npm test`
 * (test/unit/architecture/catalog-access.test.ts) rewrites it when it differs from the catalog and
 * fails once, so the change is seen and committed; `npm run catalog:access` writes it at once.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { routes } from '#catalog';
import { projectRoot } from '#lib/functions';

export const accessFile = join(projectRoot, 'lambdas', 'catalog', 'access.json');

/** The text of access.json for the current catalog: one route a line. */
export function routeAccessText(): string {
  const rows = routes.map((r) => {
    const row: Record<string, unknown> = { id: r.id, method: r.method, path: r.path };
    if (r.root) row.root = true;
    row.auth = r.auth;
    if (r.rate) row.rate = r.rate;
    if (r.twinOnly) row.twinOnly = true;
    return `  ${JSON.stringify(row)}`;
  });
  return `[\n${rows.join(',\n')}\n]\n`;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  writeFileSync(accessFile, routeAccessText());
  console.log(`wrote ${accessFile}`);
}
