import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clientSchemaText, schemaFile } from '#scripts/generate-client';

describe('the typed client', () => {
  it('carries the types of the document the service serves (npm run client:generate after any change to a route)', async () => {
    expect(readFileSync(schemaFile, 'utf8') === (await clientSchemaText()), 'clients/typescript/schema.d.ts is stale: run npm run client:generate').toBe(true);
  }, 120_000);
});
