import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Entity } from 'electrodb';
import { describe, expect, it } from 'vitest';
import { bundleHandler } from '#scripts/bundle';

describe("ElectroDB's model check", () => {
  it('still rejects a malformed model where the sources run, so the bundles may skip it', () => {
    // A version that is not a string: what only the model check (jsonschema) finds.
    const model = { model: { entity: 'x', version: 1, service: 'despacho' }, attributes: { id: { type: 'string' } }, indexes: { byId: { pk: { field: 'pk', composite: ['id'] } } } };
    expect(() => new Entity(model as never, { table: 't' })).toThrow(/model\.version is not of a type/);
  });

  it('is left out of a deployed bundle that carries ElectroDB', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'despacho-model-check-'));
    try {
      const bundle = await bundleHandler('http/auth/me', dir);
      expect(bundle.packages).toHaveProperty('electrodb');
      expect(bundle.packages).not.toHaveProperty('jsonschema');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
