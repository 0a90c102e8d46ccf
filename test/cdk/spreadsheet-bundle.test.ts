import { runOk } from '#support/run';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { routes } from '#catalog';
import { DataStack } from '#lib/data';
import { CatalogFunction, type FunctionDef } from '#lib/functions';
import { stageSettings } from '#lib/stage';
import { bundleHandler } from '#scripts/bundle';
import { workbook } from '#support/workbooks';

/** Under lambdas/, as catalog handlers are named: a fixture handler that imports lambdas/infra/spreadsheet.ts. */
const fixtureHandler = '../test/support/spreadsheet-handler';
const rows = [['HAWB', 'Destinatario'], ['H1', 'Ana Pérez']];
const xlsx = workbook(rows);
/** Legacy .xls takes another path through the parser (its codepage tables must be in the bundle too). */
const xls = workbook(rows, { bookType: 'xls' });
const expectedRows = [
  { row: 1, cells: ['HAWB', 'Destinatario'] },
  { row: 2, cells: ['H1', 'Ana Pérez'] },
];

/** Runs the bundle's handler in a fresh Node process from its own directory, with no node_modules in reach. */
async function invoke(dir: string, sheet: Buffer): Promise<unknown> {
  const run = `
    const { handler } = await import(${JSON.stringify(join(dir, 'index.mjs'))});
    process.stdout.write(JSON.stringify(await handler({ workbook: ${JSON.stringify(sheet.toString('base64'))} })));
  `;
  const out = await runOk(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', run], {
    cwd: dir,
    env: { PATH: process.env.PATH, LOG_LEVEL: 'ERROR' },
  });
  return JSON.parse(out);
}

describe('a handler that reads spreadsheets, bundled', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'despacho-sheet-bundle-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('ships spreadsheet-worker.cjs beside index.mjs in the bench bundle and parses a workbook from there', { timeout: 120_000 }, async () => {
    const bundle = await bundleHandler(fixtureHandler, join(outdir, 'bench'));
    expect(bundle.workers.map((w) => basename(w))).toEqual(['spreadsheet-worker.cjs']);
    expect(await invoke(join(outdir, 'bench'), xlsx)).toEqual(expectedRows);
  });

  it('ships no worker with a handler that does not read spreadsheets', { timeout: 120_000 }, async () => {
    const bundle = await bundleHandler('http/auth/me', join(outdir, 'plain'));
    expect(bundle.workers).toEqual([]);
    // Beside the handler only what it loads lazily (the X-Ray tracer, when tracing is on), never the spreadsheet worker.
    const lazy = bundle.lazyModules.flatMap((m) => [basename(m), `${basename(m)}.map`]);
    expect(readdirSync(join(outdir, 'plain')).sort()).toEqual(['index.mjs', 'index.mjs.map', ...lazy].sort());
    expect(readdirSync(join(outdir, 'plain'))).not.toContain('spreadsheet-worker.cjs');
  });

  it('ships the worker in the CDK asset of such a handler only, without the metafile, and the asset parses an .xls workbook', { timeout: 180_000 }, async () => {
    const settings = stageSettings('dev');
    const app = new App({ outdir: join(outdir, 'cdk'), context: { 'aws:cdk:bundling-stacks': ['SheetProbe'] }, builtinCloudFormationValidation: false });
    const data = new DataStack(app, 'SheetProbeData', { settings });
    const stack = new Stack(app, 'SheetProbe');
    const reader: FunctionDef = { id: 'SheetReader', handler: fixtureHandler };
    new CatalogFunction(stack, 'SheetReader', { def: reader, kind: 'http', settings, data });
    new CatalogFunction(stack, 'Health', { def: routes.find((r) => r.id === 'Health')!, kind: 'http', settings, data });
    const assembly = app.synth();

    const assets = readdirSync(assembly.directory)
      .filter((f) => f.startsWith('asset.') && existsSync(join(assembly.directory, f, 'index.mjs')))
      .map((f) => join(assembly.directory, f));
    const files = assets.map((dir) => readdirSync(dir).sort());
    expect(files).toHaveLength(2);
    expect(files).toContainEqual(['index.mjs', 'index.mjs.map']);
    expect(files).toContainEqual(['index.mjs', 'index.mjs.map', 'spreadsheet-worker.cjs', 'spreadsheet-worker.cjs.map']);

    const readerDir = assets.find((dir) => existsSync(join(dir, 'spreadsheet-worker.cjs')))!;
    expect(await invoke(readerDir, xls)).toEqual(expectedRows);
  });
});
