/**
 * Bundles a Lambda handler the way the CDK's NodejsFunction does, and times its module init in a
 * fresh Node process. Shared by the cold-start benchmark (scripts/bench-cold.ts) and its test.
 */
import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import { browserScriptsFor, lambdaBuildOptions as lambdaEsbuildOptions, lambdaBundle, lazyModulesFor, workerBundle, workerScriptsFor } from '#lib/bundling';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The size and init-time targets every function's bundle must meet. */
export const targets = { maxBytes: 1024 * 1024, maxInitMs: 300 } as const;

/**
 * NodejsFunction's esbuild options for an ESM Lambda on nodejs24.x with the SDK bundled
 * (externalModules: []), as lib/bundling.ts gives them.
 */
export const lambdaBuildOptions: BuildOptions = lambdaEsbuildOptions();

/** Enough environment for a handler module to load without an AWS account. */
export const benchEnv: Record<string, string> = {
  TABLE_NAME: 'bench',
  AWS_REGION: 'us-east-1',
  STAGE: 'bench',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
  LOG_LEVEL: 'SILENT',
};

export interface Bundle {
  /** Absolute path of the bundle (`<outDir>/index.mjs`). */
  file: string;
  bytes: number;
  /** Absolute paths of the worker scripts bundled beside it (lib/bundling.ts `workerScripts`). */
  workers: string[];
  /** Absolute paths of the browser scripts compiled beside it (lib/bundling.ts `browserScripts`). */
  browserScripts: string[];
  /** Absolute paths of the lazy modules bundled beside it (lib/bundling.ts `lazyModules`), loaded only when configured. */
  lazyModules: string[];
  /** Bytes of index.mjs by where they come from: an npm package (`@aws-sdk/client-dynamodb`, `electrodb`) or a folder of ours (`lambdas/infra`). */
  packages: Record<string, number>;
}

/** Where an input of the bundle comes from: its npm package, or its top two folders (`lambdas/core`). */
export function packageOf(input: string): string {
  const p = input.replaceAll('\\', '/');
  const i = p.lastIndexOf('node_modules/');
  if (i >= 0) {
    const [a, b] = p.slice(i + 'node_modules/'.length).split('/');
    return a.startsWith('@') ? `${a}/${b}` : a;
  }
  return p.split('/').slice(0, 2).join('/');
}

/**
 * Bundles `lambdas/<handler>.ts` into `<outDir>/index.mjs`, as NodejsFunction would, plus the
 * worker scripts it starts and the browser scripts it serves (see `workerBundlingCommands`, the
 * CDK's side of the same rule).
 */
export async function bundleHandler(handler: string, outDir: string): Promise<Bundle> {
  const file = join(outDir, 'index.mjs');
  const { metafile } = await build({
    ...lambdaBuildOptions,
    entryPoints: [join(repoRoot, 'lambdas', `${handler}.ts`)],
    outfile: file,
    absWorkingDir: repoRoot,
    metafile: true,
  });
  const workers: string[] = [];
  for (const worker of workerScriptsFor(Object.keys(metafile.inputs))) {
    const outfile = join(outDir, worker.outfile);
    await build({
      ...lambdaBuildOptions,
      ...workerBundle,
      mainFields: [...workerBundle.mainFields],
      banner: undefined,
      entryPoints: [join(repoRoot, worker.entry)],
      outfile,
      absWorkingDir: repoRoot,
    });
    workers.push(outfile);
  }
  const browserScripts: string[] = [];
  for (const script of browserScriptsFor(Object.keys(metafile.inputs))) {
    const outfile = join(outDir, script.outfile);
    await build({
      entryPoints: [join(repoRoot, script.entry)],
      tsconfig: join(repoRoot, script.tsconfig),
      bundle: true,
      platform: script.platform,
      format: script.format,
      target: script.target,
      ...('minify' in script && script.minify ? { minify: true } : {}),
      logLevel: 'warning',
      outfile,
      absWorkingDir: repoRoot,
    });
    browserScripts.push(outfile);
  }
  const lazy: string[] = [];
  for (const m of lazyModulesFor(Object.keys(metafile.inputs))) {
    const outfile = join(outDir, m.outfile);
    await build({ ...lambdaBuildOptions, entryPoints: [join(repoRoot, m.entry)], outfile, absWorkingDir: repoRoot });
    lazy.push(outfile);
  }
  const packages: Record<string, number> = {};
  const output = Object.entries(metafile.outputs).find(([k]) => k.endsWith('index.mjs'))?.[1];
  for (const [input, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) packages[packageOf(input)] = (packages[packageOf(input)] ?? 0) + bytesInOutput;
  return { file, bytes: (await stat(file)).size, workers, browserScripts, lazyModules: lazy, packages };
}

/**
 * The bytes of `lambdas/<handler>.ts`'s index.mjs as `bundleHandler` writes it (esbuild's output is
 * deterministic), built in memory and without the files beside it: what the budget test reads.
 */
export async function bundleBytes(handler: string): Promise<number> {
  const { outputFiles } = await build({
    ...lambdaBuildOptions,
    entryPoints: [join(repoRoot, 'lambdas', `${handler}.ts`)],
    outfile: join(repoRoot, '.bench', 'budget', 'index.mjs'),
    absWorkingDir: repoRoot,
    write: false,
  });
  return outputFiles.find((f) => f.path.endsWith('index.mjs'))!.contents.byteLength;
}

/**
 * The bytes of each handler's index.mjs, every one built in one esbuild run (each module parsed
 * once for all of them, where a build per handler parsed the SDK again for each): what the budget
 * test reads. Each entry is its own bundle, as `bundleBytes` builds it.
 */
export async function bundlesBytes(handlers: readonly string[]): Promise<Map<string, number>> {
  const { outputFiles } = await build({
    ...lambdaBuildOptions,
    entryPoints: Object.fromEntries(handlers.map((h) => [`${h}/index`, join(repoRoot, 'lambdas', `${h}.ts`)])),
    outdir: join(repoRoot, '.bench', 'budget'),
    outExtension: { '.js': '.mjs' },
    absWorkingDir: repoRoot,
    write: false,
  });
  const sizes = new Map<string, number>();
  for (const h of handlers) {
    const file = outputFiles.find((f) => f.path === join(repoRoot, '.bench', 'budget', h, 'index.mjs'));
    if (!file) throw new Error(`no bundle built for ${h}`);
    sizes.set(h, file.contents.byteLength);
  }
  return sizes;
}

/** Each bundle's size budget in KB, by handler (`npm run bench:cold -- --write-budgets` writes it; test/bench/budgets.test.ts holds every bundle to it). */
export const budgetsFile = join(repoRoot, 'scripts', 'bundle-budgets.json');

/**
 * A bundle's budget: its target when it is within it (it may grow up to it, no further); else its
 * size now with 5 to 15 KB of room (the next 10 KB above size + 5), so that a new dependency or a
 * module pulled in by mistake fails the test while a line of code does not.
 */
export function budgetFor(bytes: number, targetKb: number): number {
  const kb = bytes / 1024;
  return kb < targetKb ? targetKb : Math.ceil((kb + 5) / 10) * 10;
}

/** Runs in the child: performance.now() is relative to that process's start, so only the import is timed. */
const probe = [
  'const url = process.argv[1];',
  'const c0 = process.cpuUsage();',
  'const t0 = performance.now();',
  'const mod = await import(url);',
  'const ms = performance.now() - t0;',
  'const c = process.cpuUsage(c0);',
  "if (typeof mod.handler !== 'function') throw new Error('the bundle exports no handler function');",
  'process.stdout.write(JSON.stringify({ ms, cpuMs: (c.user + c.system) / 1000 }));',
].join('\n');

/** Imports a bundle in a fresh `node` process and returns how long the import took, in ms. */
export async function importOnce(file: string, env: Record<string, string> = benchEnv): Promise<number> {
  return (await importTimes(file, env)).ms;
}

/**
 * Imports a bundle in a fresh `node` process: how long the import took (`ms`, wall clock) and the
 * CPU time the process spent in it (`cpuMs`, user and system over all its threads), which a busy
 * machine inflates far less than the wall clock, as the process waits for a core without spending any.
 */
export function importTimes(file: string, env: Record<string, string> = benchEnv): Promise<{ ms: number; cpuMs: number }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [lambdaBundle.nodeOptions, '--input-type=module', '-e', probe, pathToFileURL(file).href], {
      // A clean environment: no AWS profile or credentials of the caller leak into the measurement.
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`importing ${file} failed (exit ${code}):\n${err.trim()}`));
      try {
        resolvePromise(JSON.parse(out) as { ms: number; cpuMs: number });
      } catch {
        reject(new Error(`unexpected output importing ${file}: ${out}${err}`));
      }
    });
  });
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Runs tasks with at most `limit` in flight, keeping results in input order (the service's own helper). */
export { mapConcurrent as pool } from '#shared/concurrency';
