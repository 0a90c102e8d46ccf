import { runOk } from '#support/run';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { routes } from '#catalog';
import { dashboardScriptText } from '#http/dashboard/script';
import { DataStack } from '#lib/data';
import { CatalogFunction } from '#lib/functions';
import { stageSettings } from '#lib/stage';
import { bundleHandler } from '#scripts/bundle';

/** GET /dashboard/<asset> (app.js unless said) through the bundle's handler, in a fresh Node process from its own directory, no node_modules in reach. */
async function getScript(dir: string, asset = 'app.js'): Promise<{ statusCode: number; headers: Record<string, string>; body: string }> {
  const event = {
    version: '2.0',
    routeKey: 'GET /dashboard/{asset}',
    rawPath: `/dashboard/${asset}`,
    rawQueryString: '',
    headers: { host: 'example.test' },
    pathParameters: { asset },
    requestContext: { requestId: 'r-1', routeKey: 'GET /dashboard/{asset}', stage: '$default', timeEpoch: 0, http: { method: 'GET', path: `/dashboard/${asset}`, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' } },
    isBase64Encoded: false,
  };
  const run = `
    const { handler } = await import(${JSON.stringify(join(dir, 'index.mjs'))});
    process.stdout.write(JSON.stringify(await handler(${JSON.stringify(event)}, { awsRequestId: 'r-1', functionName: 'DashboardAssets' })));
  `;
  const out = await runOk(process.execPath, ['--input-type=module', '-e', run], { cwd: dir, env: { PATH: process.env.PATH, LOG_LEVEL: 'ERROR', POWERTOOLS_LOG_LEVEL: 'ERROR' } });
  return JSON.parse(out);
}

describe('the dashboard, bundled', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'despacho-dashboard-bundle-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('ships its compiled script beside index.mjs in the bench bundle and serves it as the twin does', { timeout: 120_000 }, async () => {
    const bundle = await bundleHandler('http/dashboard/page', join(outdir, 'bench'));
    expect(bundle.browserScripts.map((s) => basename(s))).toEqual(['dashboard-app.js', 'dashboard-app.css']);
    const res = await getScript(join(outdir, 'bench'));
    expect(res.statusCode).toBe(200);
    expect(Object.entries(res.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1]).toBe('text/javascript; charset=utf-8');
    expect(res.body).toBe(readFileSync(bundle.browserScripts[0], 'utf8'));
    expect(res.body).toContain('"despacho.dashboard.token"');
    expect(res.body.replace(/^\s*\/\/.*$/gm, '')).toBe((await dashboardScriptText()).replace(/^\s*\/\/.*$/gm, ''));
    // The stylesheet too: a file beside index.mjs, its text not in the bundle.
    const css = await getScript(join(outdir, 'bench'), 'app.css');
    expect(css.statusCode).toBe(200);
    expect(Object.entries(css.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1]).toBe('text/css; charset=utf-8');
    expect(css.body).toBe(readFileSync(bundle.browserScripts[1], 'utf8'));
    expect(css.body).toContain('box-sizing:border-box');
    expect(css.body).not.toContain('lambdas/');
    expect(readFileSync(bundle.file, 'utf8')).not.toContain('--accent:#0b5cad');
  });

  it('ships the script in the CDK asset of the dashboard only, without the metafile', { timeout: 180_000 }, async () => {
    const settings = stageSettings('dev');
    const app = new App({ outdir: join(outdir, 'cdk'), context: { 'aws:cdk:bundling-stacks': ['DashboardProbe'] }, builtinCloudFormationValidation: false });
    const data = new DataStack(app, 'DashboardProbeData', { settings });
    const stack = new Stack(app, 'DashboardProbe');
    new CatalogFunction(stack, 'DashboardAssets', { def: routes.find((r) => r.id === 'DashboardAssets')!, kind: 'http', settings, data });
    new CatalogFunction(stack, 'Health', { def: routes.find((r) => r.id === 'Health')!, kind: 'http', settings, data });
    const assembly = app.synth();

    const assets = readdirSync(assembly.directory)
      .filter((f) => f.startsWith('asset.') && existsSync(join(assembly.directory, f, 'index.mjs')))
      .map((f) => join(assembly.directory, f));
    const files = assets.map((dir) => readdirSync(dir).sort());
    expect(files).toHaveLength(2);
    expect(files).toContainEqual(['index.mjs', 'index.mjs.map']);
    expect(files).toContainEqual(['dashboard-app.css', 'dashboard-app.js', 'index.mjs', 'index.mjs.map']);

    const dashboardDir = assets.find((dir) => existsSync(join(dir, 'dashboard-app.js')))!;
    const res = await getScript(dashboardDir);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(readFileSync(join(dashboardDir, 'dashboard-app.js'), 'utf8'));
    expect(res.body).toContain('"despacho.dashboard.token"');
  });
});
