import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';
import { dashboardScript, dashboardStyle } from '#http/dashboard/script';
import { docsScript } from '#http/system/docs-script';
import { consoleScript, consoleStyle } from '#http/console/script';

/**
 * How every Lambda is bundled: one minified ESM file per handler with the AWS SDK inside (pinned by
 * the lock file), source maps beside it. The CDK (lib/functions.ts) and `npm run bench:cold`
 * (scripts/bundle.ts) both read this, so the bench measures exactly what is deployed.
 */
export const lambdaBundle = {
  format: 'esm',
  target: 'node24',
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  mainFields: ['module', 'main'],
  /** ESM bundles still meet CommonJS dependencies that call require(). */
  banner: "import { createRequire } from 'module';const require = createRequire(import.meta.url);",
  /** esbuild compiles the dashboard's script only when run from the sources; a bundle carries it compiled (`browserScripts`). */
  external: ['esbuild'] as string[],
  /** Stack traces point into the TypeScript sources. */
  nodeOptions: '--enable-source-maps',
  /**
   * Modules replaced in every bundle (paths from the repository root): the SDK's default
   * credential chain by the environment's credentials, all a Lambda function is ever given
   * (lambdas/infra/lambda-credentials.ts); ElectroDB's model checker by a no-op, its check made
   * where the sources run (lambdas/infra/entities/model-validator.ts).
   */
  alias: {
    '@aws-sdk/credential-provider-node': './lambdas/infra/lambda-credentials.ts',
    /** ElectroDB's check of the entities' constant models runs where the sources run (lambdas/infra/entities/model-validator.ts). */
    jsonschema: './lambdas/infra/entities/model-validator.ts',
  },
} as const;

/**
 * `lambdaBundle` as esbuild's JS API takes it (scripts/bundle.ts for the benchmarks and budgets,
 * lib/prebundle.ts for the synth); `root` makes the aliases absolute, for a build from elsewhere.
 */
export function lambdaBuildOptions(root?: string): BuildOptions {
  return {
    bundle: true,
    platform: 'node',
    format: lambdaBundle.format,
    target: lambdaBundle.target,
    minify: lambdaBundle.minify,
    sourcemap: lambdaBundle.sourcemap,
    sourcesContent: lambdaBundle.sourcesContent,
    mainFields: [...lambdaBundle.mainFields],
    banner: { js: lambdaBundle.banner },
    external: [...lambdaBundle.external],
    alias: root ? Object.fromEntries(Object.entries(lambdaBundle.alias).map(([from, to]) => [from, resolve(root, to)])) : { ...lambdaBundle.alias },
    logLevel: 'warning',
  };
}

/**
 * Scripts a handler starts as worker threads (`new Worker(new URL('./<file>', import.meta.url))`).
 * esbuild does not follow that URL, so each is bundled on its own, with its dependencies inside,
 * into the handler's output directory beside index.mjs, whenever the handler's bundle contains
 * the module that starts it. Paths are relative to the repository root, as esbuild's metafile
 * names its inputs. Worker scripts are CommonJS: the parsers they isolate are sloppy-mode code,
 * which an ES module bundle would run in strict mode.
 */
export const workerScripts = [
  {
    entry: 'lambdas/infra/spreadsheet-worker.cjs',
    outfile: 'spreadsheet-worker.cjs',
    startedBy: 'lambdas/infra/spreadsheet.ts',
  },
] as const;

export type WorkerScript = (typeof workerScripts)[number];

/** The worker scripts a bundle needs, from the inputs listed in its esbuild metafile. */
export function workerScriptsFor(bundleInputs: Iterable<string>): WorkerScript[] {
  const inputs = new Set([...bundleInputs].map((p) => p.replaceAll('\\', '/')));
  return workerScripts.filter((w) => inputs.has(w.startedBy));
}

/**
 * Modules a handler imports only at run time, and only when its configuration asks (a computed
 * URL, which esbuild does not follow): each is bundled on its own, as ESM with the Lambda bundle's
 * settings, beside index.mjs whenever the bundle contains the module that loads it. The tracer is
 * one (lambdas/infra/tracing.ts): about 120 KB that a function with tracing off never reads.
 */
export const lazyModules = [
  {
    entry: 'lambdas/infra/xray-tracer.ts',
    outfile: 'xray-tracer.mjs',
    loadedBy: 'lambdas/infra/tracing.ts',
  },
  {
    // The HS nomenclature (about 760 KB), read by the classifier's fallback tier at its first
    // description the tariff table does not explain (lambdas/infra/tariff/classifier-port.ts).
    entry: 'lambdas/infra/tariff/hs-nomenclature.ts',
    outfile: 'hs-nomenclature.mjs',
    data: ['lambdas/infra/tariff/hs-nomenclature.json'],
    loadedBy: 'lambdas/infra/tariff/classifier-port.ts',
  },
  {
    // The classifier's Bedrock tier and its SDK client, read only where BEDROCK_MODEL_ID is set
    // (classifier-port.ts): in index.mjs, even unevaluated, the client's HTTP/2 handler made Node
    // load node:http2 at every cold start (issue 46); beside it, a stage without a model never reads it.
    entry: 'lambdas/infra/tariff/bedrock.ts',
    outfile: 'tariff-bedrock.mjs',
    loadedBy: 'lambdas/infra/tariff/classifier-port.ts',
  },
  {
    // The S3 client, lib-storage and the presigners (lambdas/infra/s3-sdk.ts), imported at a
    // function's first file operation (lambdas/infra/blob-objects.ts `s3Sdk`): in index.mjs they
    // were about 0.2 to 0.3 of the reference module's init in every function that keeps files (issue 46).
    entry: 'lambdas/infra/s3-sdk.ts',
    outfile: 's3-sdk.mjs',
    loadedBy: 'lambdas/infra/blob-objects.ts',
  },
] as const;

export type LazyModule = (typeof lazyModules)[number];

/** The lazy modules a bundle needs, from the inputs listed in its esbuild metafile. */
export function lazyModulesFor(bundleInputs: Iterable<string>): LazyModule[] {
  const inputs = new Set([...bundleInputs].map((p) => p.replaceAll('\\', '/')));
  return lazyModules.filter((m) => inputs.has(m.loadedBy));
}

/** esbuild's command-line flags for a lazy module: the Lambda bundle's, for its own file. */
export function lazyEsbuildArgs(module: LazyModule, inputDir: string, outputDir: string): string[] {
  return [
    `${inputDir}/${module.entry}`,
    '--bundle',
    '--platform=node',
    `--format=${lambdaBundle.format}`,
    `--target=${lambdaBundle.target}`,
    ...(lambdaBundle.minify ? ['--minify'] : []),
    ...(lambdaBundle.sourcemap ? ['--sourcemap'] : []),
    `--sources-content=${lambdaBundle.sourcesContent}`,
    `--main-fields=${lambdaBundle.mainFields.join(',')}`,
    `--banner:js=${lambdaBundle.banner}`,
    // The Lambda bundle's aliases, so that an SDK client in a lazy module takes the environment's credentials too.
    ...Object.entries(lambdaBundle.alias).map(([from, to]) => `--alias:${from}=${inputDir}/${to.replace(/^\.\//, '')}`),
    '--log-level=warning',
    `--outfile=${outputDir}/${module.outfile}`,
  ];
}

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * A lazy module is the same file for every function, so a synth bundles it once and copies it:
 * into `node_modules/.cache/despacho-lazy/<key>/`, where the key hashes the lock file, the module's
 * entry, the data files it imports (`data`) and its esbuild flags (a change to any of them makes a new one).
 */
export function lazyCacheDir(module: LazyModule, inputDir: string): string {
  const read = (f: string) => (existsSync(join(repositoryRoot, f)) ? readFileSync(join(repositoryRoot, f)) : '');
  const key = createHash('sha256')
    .update(read('package-lock.json'))
    .update(read(module.entry))
    .update('data' in module ? module.data.map(read).join('\0') : '')
    .update(JSON.stringify(lazyEsbuildArgs(module, '', '')))
    .digest('hex')
    .slice(0, 16);
  return `${inputDir}/node_modules/.cache/despacho-lazy/${key}`;
}

/** How a worker script is bundled: the Lambda bundle's settings, as CommonJS (no ESM banner). */
export const workerBundle = {
  format: 'cjs',
  /** Not the repository's tsconfig: its `strict` makes esbuild put "use strict" over the whole bundle, parser included. */
  tsconfigRaw: '{}',
  target: lambdaBundle.target,
  minify: lambdaBundle.minify,
  sourcemap: lambdaBundle.sourcemap,
  sourcesContent: lambdaBundle.sourcesContent,
  mainFields: lambdaBundle.mainFields,
} as const;

/** esbuild's command-line flags for a worker script, from `workerBundle`. */
export function workerEsbuildArgs(worker: WorkerScript, inputDir: string, outputDir: string): string[] {
  return [
    `${inputDir}/${worker.entry}`,
    '--bundle',
    '--platform=node',
    `--format=${workerBundle.format}`,
    `--target=${workerBundle.target}`,
    ...(workerBundle.minify ? ['--minify'] : []),
    ...(workerBundle.sourcemap ? ['--sourcemap'] : []),
    `--sources-content=${workerBundle.sourcesContent}`,
    `--main-fields=${workerBundle.mainFields.join(',')}`,
    `--tsconfig-raw=${workerBundle.tsconfigRaw}`,
    '--log-level=warning',
    `--outfile=${outputDir}/${worker.outfile}`,
  ];
}

/**
 * Browser scripts a handler serves as text, read from beside index.mjs: each is compiled there
 * whenever the bundle contains the module that serves it.
 */
export const browserScripts = [dashboardScript, dashboardStyle, docsScript, consoleScript, consoleStyle] as const;

export type BrowserScript = (typeof browserScripts)[number];

/** The browser scripts a bundle needs, from the inputs listed in its esbuild metafile. */
export function browserScriptsFor(bundleInputs: Iterable<string>): BrowserScript[] {
  const inputs = new Set([...bundleInputs].map((p) => p.replaceAll('\\', '/')));
  return browserScripts.filter((s) => inputs.has(s.servedBy));
}

/** esbuild's command-line flags for a browser script. */
export function browserEsbuildArgs(script: BrowserScript, inputDir: string, outputDir: string): string[] {
  return [
    `${inputDir}/${script.entry}`,
    '--bundle',
    `--platform=${script.platform}`,
    `--format=${script.format}`,
    `--target=${script.target}`,
    `--tsconfig=${inputDir}/${script.tsconfig}`,
    ...('minify' in script && script.minify ? ['--minify'] : []),
    '--log-level=warning',
    `--outfile=${outputDir}/${script.outfile}`,
  ];
}

const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * NodejsFunction's `commandHooks.afterBundling` (bash, run from the project root): esbuild has
 * written `index.meta.json` (bundling `metafile: true`); each worker script whose starter is among
 * its inputs is bundled next to index.mjs with the local esbuild binary, and so is each browser
 * script whose server is among them and each lazy module whose loader is; then the metafile is
 * removed so it does not ship, or moved to `keepMetaAt` (the bundle cache reads its inputs, lib/bundle-cache.ts).
 */
export function workerBundlingCommands(inputDir: string, outputDir: string, keepMetaAt?: string): string[] {
  const meta = shellQuote(`${outputDir}/index.meta.json`);
  const esbuild = shellQuote(`${inputDir}/node_modules/.bin/esbuild`);
  return [
    ...workerScripts.map(
      (w) => `if grep -qF ${shellQuote(`"${w.startedBy}"`)} ${meta}; then ${esbuild} ${workerEsbuildArgs(w, inputDir, outputDir).map(shellQuote).join(' ')}; fi`,
    ),
    ...browserScripts.map(
      (s) => `if grep -qF ${shellQuote(`"${s.servedBy}"`)} ${meta}; then ${esbuild} ${browserEsbuildArgs(s, inputDir, outputDir).map(shellQuote).join(' ')}; fi`,
    ),
    ...lazyModules.map((m) => {
      const cache = lazyCacheDir(m, inputDir);
      const cached = (f: string) => shellQuote(`${cache}/${f}`);
      const built = (f: string) => shellQuote(`${outputDir}/${f}`);
      // Published to the cache by rename, the map first: another synth bundling at the same time
      // sees the module whole or not at all (a plain -f test once copied the empty file esbuild
      // had just opened, and a function shipped without its tracer).
      const publish = (f: string) => `t=$(mktemp ${cached('.tmp.XXXXXX')}) && cp ${built(f)} "$t" && mv -f "$t" ${cached(f)}`;
      const build = `${esbuild} ${lazyEsbuildArgs(m, inputDir, outputDir).map(shellQuote).join(' ')} && mkdir -p ${shellQuote(cache)} && ${publish(`${m.outfile}.map`)} && ${publish(m.outfile)}`;
      const copy = `cp ${cached(m.outfile)} ${cached(`${m.outfile}.map`)} ${shellQuote(outputDir)}`;
      return `if grep -qF ${shellQuote(`"${m.loadedBy}"`)} ${meta}; then if [ -s ${cached(m.outfile)} ]; then ${copy}; else ${build}; fi; fi`;
    }),
    keepMetaAt ? `mkdir -p ${shellQuote(dirname(keepMetaAt))} && mv -f ${meta} ${shellQuote(keepMetaAt)}` : `rm -f ${meta}`,
  ];
}
