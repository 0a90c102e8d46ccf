import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { accessFile, authenticationDoc, authenticationText, routeAccessText } from '#scripts/generate-route-access';

describe("the authorizer's route table", () => {
  it("is the catalog's methods, paths, roles, scopes and rate groups (rewritten here when a route changed: commit it)", () => {
    const fresh = routeAccessText();
    const stale = readFileSync(accessFile, 'utf8') !== fresh;
    if (stale) writeFileSync(accessFile, fresh);
    expect(stale, 'lambdas/catalog/access.json was stale: npm test has rewritten it from the catalog; commit it').toBe(false);
  });

  it("gives authentication.md the catalog's scopes: who may hold each and every route that needs it (rewritten here when it differs: commit it)", () => {
    const fresh = authenticationText();
    const stale = readFileSync(authenticationDoc, 'utf8') !== fresh;
    if (stale) writeFileSync(authenticationDoc, fresh);
    expect(stale, 'docs/partners/authentication.md had a stale scopes table: npm test has rewritten it from the catalog; commit it').toBe(false);
  });
});
