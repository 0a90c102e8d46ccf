import { runOk } from '#support/run';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { consoleScriptText } from '#http/console/script';
import { bundleHandler } from '#scripts/bundle';

/** GET `path` through the bundle's handler, in a fresh Node process from its own directory, no node_modules in reach. */
async function get(dir: string, path: string): Promise<{ statusCode: number; headers: Record<string, string>; body: string }> {
  const event = {
    version: '2.0',
    routeKey: 'GET /console/{screen}',
    rawPath: path,
    rawQueryString: '',
    headers: { host: 'example.test' },
    requestContext: { requestId: 'r-1', routeKey: 'GET /console/{screen}', stage: '$default', timeEpoch: 0, http: { method: 'GET', path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' } },
    isBase64Encoded: false,
  };
  const run = `
    const { handler } = await import(${JSON.stringify(join(dir, 'index.mjs'))});
    process.stdout.write(JSON.stringify(await handler(${JSON.stringify(event)}, { awsRequestId: 'r-1', functionName: 'ConsoleScreens' })));
  `;
  const out = await runOk(process.execPath, ['--input-type=module', '-e', run], { cwd: dir, env: { PATH: process.env.PATH, LOG_LEVEL: 'ERROR', POWERTOOLS_LOG_LEVEL: 'ERROR' } });
  return JSON.parse(out);
}

const header = (res: { headers: Record<string, string> }, name: string) => Object.entries(res.headers).find(([k]) => k.toLowerCase() === name)?.[1];

describe('the console, bundled', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'despacho-console-bundle-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('ships its compiled script and stylesheet beside index.mjs, serves them and the page as the twin does, without the dashboard', { timeout: 120_000 }, async () => {
    const bundle = await bundleHandler('http/console/page', join(outdir, 'bench'));
    expect(bundle.browserScripts.map((s) => basename(s))).toEqual(['console-app.js', 'console-app.css']);
    const js = await get(join(outdir, 'bench'), '/console/app.js');
    expect(js.statusCode).toBe(200);
    expect(header(js, 'content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.body).toBe(readFileSync(bundle.browserScripts[0], 'utf8'));
    expect(js.body).toBe(await consoleScriptText());
    expect(js.body).toContain('despacho.console.token');
    const css = await get(join(outdir, 'bench'), '/console/app.css');
    expect(header(css, 'content-type')).toBe('text/css; charset=utf-8');
    expect(css.body).not.toContain('lambdas/');
    const page = await get(join(outdir, 'bench'), '/console/review');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<script src="/console/app.js" defer></script>');
    expect(header(page, 'content-security-policy')).toContain("require-trusted-types-for 'script'");
    expect((await get(join(outdir, 'bench'), '/console/nothing')).statusCode).toBe(404);
    // The bundle carries neither the script's text nor the dashboard's page.
    const index = readFileSync(bundle.file, 'utf8');
    expect(index).not.toContain('despacho.console.token');
    expect(index).not.toContain('dashboard-app');
  });
});
