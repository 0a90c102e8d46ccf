import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleHandler, importOnce, targets, type Bundle } from '#scripts/bundle';

describe('a handler bundled as the CDK bundles it', () => {
  let dir: string;
  let bundle: Bundle;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'despacho-bundle-'));
    bundle = await bundleHandler('http/auth/me', dir);
  }, 60_000);

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('stays under the 1 MiB bundle target with the AWS SDK inside', () => {
    expect(bundle.bytes).toBeGreaterThan(0);
    expect(bundle.bytes).toBeLessThan(targets.maxBytes);
  });

  it('imports in a fresh Node process without an AWS account and exports its handler', async () => {
    await expect(importOnce(bundle.file)).resolves.toBeGreaterThan(0);
  }, 30_000);
});
