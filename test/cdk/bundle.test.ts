import { runOk } from '#support/run';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { routes } from '#catalog';
import { DataStack } from '#lib/data';
import { CatalogFunction } from '#lib/functions';
import { stageSettings } from '#lib/stage';

/**
 * Bundles one real function with esbuild (the other tests use placeholder assets) and runs the
 * bundle the way Lambda loads it: as an ES module, in a fresh Node process.
 */
describe('esbuild bundling', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'despacho-cdk-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  // The file's first test pays for loading the CDK and esbuild's first run besides its bundle: it
  // took 64 and 141 s beside other bundling tests on two loaded cores (a hang guard, not a target).
  it('bundles a handler into a minified ESM file with a source map that runs on Node', { timeout: 240_000 }, async () => {
    const health = routes.find((r) => r.id === 'Health')!;
    const settings = stageSettings('dev');
    const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': ['BundleProbe'] }, builtinCloudFormationValidation: false });
    const data = new DataStack(app, 'BundleProbeData', { settings });
    const stack = new Stack(app, 'BundleProbe');
    new CatalogFunction(stack, 'Health', { def: health, kind: 'http', settings, data });
    const assembly = app.synth();

    const assets = readdirSync(assembly.directory).filter((f) => f.startsWith('asset.') && existsSync(join(assembly.directory, f, 'index.mjs')));
    expect(assets).toHaveLength(1);
    const dir = join(assembly.directory, assets[0]);
    const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
    expect(code.startsWith("import { createRequire } from 'module';const require = createRequire(import.meta.url);")).toBe(true);
    expect(code).toMatch(/export\s*\{[^}]*as handler\s*\}/);
    expect(code.split('\n').length).toBeLessThan(20); // minified
    const map = JSON.parse(readFileSync(join(dir, 'index.mjs.map'), 'utf8'));
    expect(map.sourcesContent).toBeUndefined();
    expect(existsSync(join(dir, 'package.json'))).toBe(false);

    const run = `
      const { handler } = await import(${JSON.stringify(join(dir, 'index.mjs'))});
      const event = {
        version: '2.0', routeKey: 'GET /api/health', rawPath: '/api/health', rawQueryString: '',
        headers: {}, isBase64Encoded: false,
        requestContext: { requestId: 'bundle-test-1', http: { method: 'GET', path: '/api/health' } },
      };
      const res = await handler(event, { awsRequestId: 'bundle-test-1', getRemainingTimeInMillis: () => 10000 });
      process.stdout.write(JSON.stringify(res));
    `;
    const out = await runOk(process.execPath, ['--input-type=module', '-e', run], {
      env: { PATH: process.env.PATH, STAGE: 'dev', LOG_LEVEL: 'ERROR', POWERTOOLS_SERVICE_NAME: 'despacho' },
    });
    const res = JSON.parse(out);
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ success: true, data: { status: 'ok', stage: 'dev' } });
  });

  it("bundles the SDK with the environment's credentials only, the one source Lambda gives a function", { timeout: 60_000 }, async () => {
    const list = routes.find((r) => r.id === 'OrdersList')!;
    const settings = stageSettings('dev');
    const app = new App({ outdir: join(outdir, 'sdk'), context: { 'aws:cdk:bundling-stacks': ['SdkProbe'] }, builtinCloudFormationValidation: false });
    const data = new DataStack(app, 'SdkProbeData', { settings });
    const stack = new Stack(app, 'SdkProbe');
    new CatalogFunction(stack, 'OrdersList', { def: list, kind: 'http', settings, data });
    const assembly = app.synth();
    const [asset] = readdirSync(assembly.directory).filter((f) => f.startsWith('asset.') && existsSync(join(assembly.directory, f, 'index.mjs')));
    const code = readFileSync(join(assembly.directory, asset, 'index.mjs'), 'utf8');
    expect(code).toContain('AWS_SECRET_ACCESS_KEY');
    // The default chain's other links: container credentials, SSO, web identity.
    for (const link of ['AWS_CONTAINER_CREDENTIALS_RELATIVE_URI', 'sso_start_url', 'AWS_WEB_IDENTITY_TOKEN_FILE']) expect(code, link).not.toContain(link);
  });

  it('bundles the tracer beside the handler, not in it, and loads it only when tracing is on', { timeout: 60_000 }, async () => {
    const list = routes.find((r) => r.id === 'OrdersList')!;
    const settings = stageSettings('dev');
    const app = new App({ outdir: join(outdir, 'tracer'), context: { 'aws:cdk:bundling-stacks': ['TracerProbe'] }, builtinCloudFormationValidation: false });
    const data = new DataStack(app, 'TracerProbeData', { settings });
    const stack = new Stack(app, 'TracerProbe');
    new CatalogFunction(stack, 'OrdersList', { def: list, kind: 'http', settings, data });
    const assembly = app.synth();
    const [asset] = readdirSync(assembly.directory).filter((f) => f.startsWith('asset.') && existsSync(join(assembly.directory, f, 'index.mjs')));
    const dir = join(assembly.directory, asset);
    // The order list keeps a snapshot file, so the S3 SDK is beside it too (s3-sdk.mjs, issue 46).
    expect(readdirSync(dir).filter((f) => !f.endsWith('.map')).sort()).toEqual(['index.mjs', 's3-sdk.mjs', 'xray-tracer.mjs']);
    // The X-Ray SDK (its daemon address variable) is in the side file only.
    expect(readFileSync(join(dir, 'index.mjs'), 'utf8')).not.toContain('AWS_XRAY_DAEMON_ADDRESS');
    expect(readFileSync(join(dir, 'xray-tracer.mjs'), 'utf8')).toContain('AWS_XRAY_DAEMON_ADDRESS');
    const load = (env: Record<string, string>) =>
      runOk(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(join(dir, 'index.mjs'))}); process.stdout.write('loaded')`], {
        env: { PATH: process.env.PATH, STAGE: 'dev', LOG_LEVEL: 'ERROR', TABLE_NAME: 't', AWS_REGION: 'us-east-1', AWS_LAMBDA_FUNCTION_NAME: 'despacho-dev-OrdersList', ...env },
      });
    expect(await load({ POWERTOOLS_TRACE_ENABLED: 'true' })).toBe('loaded');
    renameSync(join(dir, 'xray-tracer.mjs'), join(dir, 'moved.mjs'));
    expect(await load({ POWERTOOLS_TRACE_ENABLED: 'false' })).toBe('loaded');
    await expect(load({ POWERTOOLS_TRACE_ENABLED: 'true' })).rejects.toThrow(/xray-tracer\.mjs/);
  });
  it("puts the S3 client and its presigners beside a files function's bundle, not in it, and loads them at the first file operation", { timeout: 120_000 }, async () => {
    const download = routes.find((r) => r.id === 'DocumentsDownload')!;
    const settings = stageSettings('dev');
    const app = new App({ outdir: join(outdir, 's3'), context: { 'aws:cdk:bundling-stacks': ['S3Probe'] }, builtinCloudFormationValidation: false });
    const data = new DataStack(app, 'S3ProbeData', { settings });
    const stack = new Stack(app, 'S3Probe');
    new CatalogFunction(stack, 'DocumentsDownload', { def: download, kind: 'http', settings, data });
    const assembly = app.synth();
    const [asset] = readdirSync(assembly.directory).filter((f) => f.startsWith('asset.') && existsSync(join(assembly.directory, f, 'index.mjs')));
    const dir = join(assembly.directory, asset);
    expect(readdirSync(dir).filter((f) => !f.endsWith('.map')).sort()).toEqual(['index.mjs', 's3-sdk.mjs', 'xray-tracer.mjs']);
    // S3's presigned-POST policy and its multipart upload are in the side file only; the bundle names the file it loads.
    const main = readFileSync(join(dir, 'index.mjs'), 'utf8');
    expect(main).toContain('./s3-sdk.mjs');
    for (const s3Only of ['CreateMultipartUpload', 'ListObjectsV2']) expect(main, s3Only).not.toContain(s3Only);
    const side = readFileSync(join(dir, 's3-sdk.mjs'), 'utf8');
    expect(side).toContain('CreateMultipartUpload');
    // Presigning, run from beside the bundle with no node_modules in reach, as the files port does at its first download link.
    const run = `
      const { S3Client, GetObjectCommand, getSignedUrl } = await import(${JSON.stringify(join(dir, 's3-sdk.mjs'))});
      const url = await getSignedUrl(new S3Client({}), new GetObjectCommand({ Bucket: 'files', Key: 'documents/1/a.pdf' }), { expiresIn: 60 });
      process.stdout.write(url);
    `;
    const url = new URL(
      await runOk(process.execPath, ['--input-type=module', '-e', run], {
        cwd: dir,
        env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'AKIATESTTESTTEST', AWS_SECRET_ACCESS_KEY: 'test-secret' },
      }),
    );
    expect(url.pathname).toBe('/documents/1/a.pdf');
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^AKIATESTTESTTEST\//);
  });
  it("puts the HS nomenclature beside a classifying function's bundle, not in it, as a module of its own", { timeout: 120_000 }, async () => {
    const calculate = routes.find((r) => r.id === 'CustomsCalculate')!;
    const settings = stageSettings('dev');
    const app = new App({ outdir: join(outdir, 'hs'), context: { 'aws:cdk:bundling-stacks': ['HsProbe'] }, builtinCloudFormationValidation: false });
    const data = new DataStack(app, 'HsProbeData', { settings });
    const stack = new Stack(app, 'HsProbe');
    new CatalogFunction(stack, 'CustomsCalculate', { def: calculate, kind: 'http', settings, data });
    const assembly = app.synth();
    const [asset] = readdirSync(assembly.directory).filter((f) => f.startsWith('asset.') && existsSync(join(assembly.directory, f, 'index.mjs')));
    const dir = join(assembly.directory, asset);
    expect(readdirSync(dir).filter((f) => !f.endsWith('.map')).sort()).toEqual(['hs-nomenclature.mjs', 'index.mjs', 'tariff-bedrock.mjs', 'xray-tracer.mjs']);
    // A subheading's text (8470.50) is in the side file only; the bundle names the file it loads.
    const main = readFileSync(join(dir, 'index.mjs'), 'utf8');
    expect(main).not.toContain('Cash registers');
    expect(main).toContain('./hs-nomenclature.mjs');
    // The Bedrock tier and its client too (issue 46): without them, the bundle does not load node:http2 at import.
    expect(main).toContain('./tariff-bedrock.mjs');
    expect(main).not.toContain('node:http2');
    expect(readFileSync(join(dir, 'tariff-bedrock.mjs'), 'utf8')).toContain('"Converse"');
    const count = await runOk(
      process.execPath,
      ['--input-type=module', '-e', `const m = await import(${JSON.stringify(join(dir, 'hs-nomenclature.mjs'))}); process.stdout.write(String(m.hsNomenclature.split('\\n').filter((l) => l.includes('Cash registers')).length))`],
      { env: { PATH: process.env.PATH } },
    );
    expect(Number(count)).toBeGreaterThan(0);
  });
});
