import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { accessFile, routeAccessText } from '../../../scripts/generate-route-access';

describe("the authorizer's route table", () => {
  it("is the catalog's methods, paths, roles, scopes and rate groups (npm run catalog:access after any change to a route)", () => {
    expect(readFileSync(accessFile, 'utf8') === routeAccessText(), 'lambdas/catalog-access.json is stale: run npm run catalog:access').toBe(true);
  });
});
