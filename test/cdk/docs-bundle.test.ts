import { runOk } from '#support/run';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleHandler } from '#scripts/bundle';

/** GET `path` through the bundle's handler, in a fresh Node process from its own directory, no node_modules in reach. */
async function get(dir: string, path: string): Promise<{ statusCode: number; headers: Record<string, string>; body: string }> {
  const routeKey = path === '/api/docs' ? 'GET /api/docs' : 'GET /api/docs/{asset}';
  const event = {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: '',
    headers: { host: 'example.test' },
    requestContext: { requestId: 'r-1', routeKey, stage: '$default', timeEpoch: 0, http: { method: 'GET', path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' } },
    isBase64Encoded: false,
  };
  const run = `
    const { handler } = await import(${JSON.stringify(join(dir, 'index.mjs'))});
    process.stdout.write(JSON.stringify(await handler(${JSON.stringify(event)}, { awsRequestId: 'r-1', functionName: 'ApiDocs' })));
  `;
  const out = await runOk(process.execPath, ['--input-type=module', '-e', run], {
    cwd: dir,
    env: { PATH: process.env.PATH, LOG_LEVEL: 'ERROR', POWERTOOLS_LOG_LEVEL: 'ERROR' },
  });
  return JSON.parse(out);
}

describe('the reference page, bundled', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'despacho-docs-bundle-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('ships Redoc compiled beside index.mjs and serves the page and the script from the bundle alone', { timeout: 120_000 }, async () => {
    const bundle = await bundleHandler('http/system/docs', join(outdir, 'bench'));
    expect(bundle.browserScripts.map((s) => basename(s))).toEqual(['docs-app.js']);
    const page = await get(join(outdir, 'bench'), '/api/docs');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<script src="/api/docs/redoc.js"></script>');
    const script = await get(join(outdir, 'bench'), '/api/docs/redoc.js');
    expect(script.statusCode).toBe(200);
    expect(Object.entries(script.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1]).toBe('text/javascript; charset=utf-8');
    expect(script.body).toBe(readFileSync(bundle.browserScripts[0], 'utf8'));
    expect(script.body).toContain('/api/openapi.json');
    expect(script.body).toContain('RedocStandalone');
  });
});
