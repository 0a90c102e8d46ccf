/**
 * Writes lambdas/catalog/access.json: what the authorizer and the fallback need of each route
 * (method, path, roles and scopes, rate group), as plain data, so they do not import the catalog
 * and with it every route's schemas. Never edited by hand: `npm test`
 * (test/unit/architecture/catalog-access.test.ts) rewrites it when it differs from the catalog and
 * fails once, so the change is seen and committed; `npm run catalog:access` writes it at once.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withSection } from './doc-markers';
import { routes } from '#catalog';
import { roleScopes } from '#catalog/access';
import { roles, scopes } from '#catalog/types';
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

export const authenticationDoc = join(projectRoot, 'docs', 'partners', 'authentication.md');
const begin = '<!-- scopes: generated from the catalog by npm run catalog:access; do not edit -->';
const end = '<!-- scopes: end -->';

/**
 * The scopes table of docs/partners/authentication.md, from the catalog: each scope, the roles
 * whose tokens may hold it (and get it when created without scopes), and every route that names it.
 */
export function scopesSection(): string {
  const lines = ['| Scope | Roles that may hold it | Routes that need it |', '|---|---|---|'];
  for (const scope of scopes) {
    const named = routes.filter((r) => r.auth !== 'public' && r.auth.scopes?.includes(scope)).map((r) => `${r.method} ${r.root ? '' : '/api'}${r.path}`);
    const holders = roles.filter((role) => roleScopes(role).includes(scope));
    lines.push(`| \`${scope}\` | ${holders.join(', ') || 'none (kept on tokens issued before; no route names it)'} | ${named.map((n) => n.replace(/\|/g, '\\|')).join('<br>') || '-'} |`);
  }
  return `${begin}\n${lines.join('\n')}\n${end}`;
}

/** authentication.md with its scopes table as the catalog has it now. */
export function authenticationText(): string {
  return withSection(authenticationDoc, begin, end, scopesSection(), 'scopes');
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  writeFileSync(accessFile, routeAccessText());
  writeFileSync(authenticationDoc, authenticationText());
  console.log(`wrote ${accessFile} and the scopes table of ${authenticationDoc}`);
}
