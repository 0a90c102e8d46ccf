import { runOk } from '#support/run';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleHandler, targets, type Bundle } from '#scripts/bundle';
import { readLabel, scanCode128 } from '#support/labels/label-reading';
import { sampleLabel } from '#support/labels/sample-label';

/** Under lambdas/, as catalog handlers are named: a fixture handler that renders a label. */
const fixtureHandler = '../test/support/labels/label-handler';

/**
 * What the label code may add to a handler's bundle: the handlers that would draw labels (with
 * DynamoDB, S3 and EventBridge clients inside) already weigh 650-860 KB of the 1 MiB target.
 */
const labelBudgetBytes = 200 * 1024;

describe('the label code bundled as the CDK bundles a handler', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'despacho-label-bundle-'));
  let bundle: Bundle;

  beforeAll(async () => {
    bundle = await bundleHandler(fixtureHandler, outdir);
  }, 60_000);

  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('is one file, with no font or data file beside it, well under the bundle target', () => {
    expect(readdirSync(outdir).sort()).toEqual(['index.mjs', 'index.mjs.map']);
    expect(bundle.bytes).toBeLessThan(labelBudgetBytes);
    expect(bundle.bytes).toBeLessThan(targets.maxBytes);
  });

  it('renders a label with a scannable barcode in a fresh Node process, run from its own directory with no node_modules in reach', { timeout: 30_000 }, async () => {
    const run = `
      const { handler } = await import(${JSON.stringify(bundle.file)});
      let input = '';
      for await (const chunk of process.stdin) input += chunk;
      process.stdout.write(await handler(JSON.parse(input)));
    `;
    const out = await runOk(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', run], {
      cwd: outdir,
      env: { PATH: process.env.PATH },
      input: JSON.stringify(sampleLabel),
    });
    const pages = await readLabel(Buffer.from(out, 'base64'));
    expect(pages).toHaveLength(sampleLabel.packages.length);
    expect(pages[0].text.map((t) => t.str)).toContain('José María Muñoz Ávila');
    expect(scanCode128(pages[0].images[0])).toBe(sampleLabel.trackingNumber);
  });
});
