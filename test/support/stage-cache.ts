import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, watch, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { projectRoot } from '#lib/functions';
import { referenceProd, referenceStaging, type StageTemplateFiles } from './cdk';
import { runOk } from './run';

/**
 * One synth per stage for every CDK test that only reads the stage's default templates
 * (docs/developers/testing.md, "A test that would take more than 30 s").
 *
 * `cachedStage(stage)` answers the templates `writeStageTemplates` writes for the stage (the
 * reference settings of test/support/cdk.ts, cdk-nag on: a synth with an unacknowledged finding
 * fails), from `node_modules/.cache/despacho-synth/<key>/<stage>/`. The key is a hash of what the
 * synth reads: every file of lib/ and lambdas/, cdk.json, package.json, package-lock.json, the
 * root tsconfig*.json, test/support/cdk.ts (the reference settings, hashed as well on their own),
 * the synth process and this file, the environment variables lib/stage.ts reads and Node's
 * version. A change to any of them is a new key, so a new synth; the same key in a later run
 * answers the same templates without one.
 *
 * The synth runs in a child process (test/support/stage-templates-process.ts): it is synchronous,
 * and in the worker it would hold the worker's event loop (vitest's RPC, the other tests' timers)
 * for all of it. Two workers wanting the same stage: the first creates `<stage>.lock` (`wx`, which
 * fails when the file exists) with its pid in it, synthesizes into a directory of its own, renames
 * it into place, writes `<stage>.json` (the names of the templates, renamed into place last) and
 * removes the lock. The other watches the key's directory (fs.watch) until `<stage>.json` is there
 * or the lock is gone; a lock whose process no longer runs is removed and taken.
 */

export const synthCacheRoot = join(projectRoot, 'node_modules', '.cache', 'despacho-synth');

/** What one stage's cached synth holds: its templates by stack, and their paths. */
export interface CachedStage extends StageTemplateFiles {
  stage: string;
  /** The directory the templates are in (read it, never write to it: copy what you change). */
  dir: string;
  path(file: string): string;
  json(file: string): any;
  template(file: string): Template;
}

/** The files under `dir` (no node_modules, no dot folders), relative to the project's root, sorted. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(projectRoot, rel), { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) out.push(child);
    }
  };
  walk(dir);
  return out.sort();
}

/** The inputs of the key: paths relative to the project's root. */
export function synthInputs(): string[] {
  const root = readdirSync(projectRoot).filter((f) => /^tsconfig.*\.json$/.test(f)).sort();
  const own = ['test/support/cdk.ts', 'test/support/stage-templates-process.ts', 'test/support/stage-cache.ts'];
  return [...filesUnder('lib'), ...filesUnder('lambdas'), 'cdk.json', 'package.json', 'package-lock.json', ...root, ...own];
}

/** The cache key: a hash of every input file (name and bytes), the reference settings, the environment lib/stage.ts reads and Node's version. */
export function synthKey(env: NodeJS.ProcessEnv = process.env): string {
  const hash = createHash('sha256');
  for (const file of synthInputs()) hash.update(`${file}\0`).update(readFileSync(join(projectRoot, file))).update('\0');
  hash.update(JSON.stringify({ referenceProd, referenceStaging }));
  const read = Object.keys(env)
    .filter((k) => /^(DESPACHO_|CDK_)/.test(k) || k === 'GITHUB_REPOSITORY' || k === 'GITHUB_SERVER_URL')
    .sort()
    .map((k) => [k, env[k]]);
  hash.update(JSON.stringify(read));
  hash.update(process.version);
  return hash.digest('hex').slice(0, 20);
}

const running = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Watches `dir`: `next` resolves at its next change, or after `ms` (to look at the lock's holder again). */
function watchDir(dir: string, ms: number): { next: Promise<void>; close(): void } {
  let close = () => {};
  const next = new Promise<void>((resolve) => {
    const watcher = watch(dir, () => close());
    const timer = setTimeout(() => close(), ms);
    close = () => {
      clearTimeout(timer);
      watcher.close();
      resolve();
    };
  });
  return { next, close };
}

/** Whether the lock's holder is gone: its pid no longer runs, or it left the file empty for a minute. */
function staleLock(lock: string): boolean {
  let text: string;
  try {
    text = readFileSync(lock, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  const holder = Number(text);
  if (holder > 0) return !running(holder);
  try {
    return Date.now() - statSync(lock).mtimeMs > 60_000;
  } catch {
    return false;
  }
}

function cached(stage: string, dir: string, names: StageTemplateFiles): CachedStage {
  const path = (file: string) => join(dir, file);
  const json = (file: string) => JSON.parse(readFileSync(path(file), 'utf8'));
  return { ...names, stage, dir, path, json, template: (file) => Template.fromJSON(json(file)) };
}

/** Writes a stage's templates into `outdir` and answers their names. */
export type Synth = (stage: string, outdir: string) => Promise<StageTemplateFiles>;

/** The synth of the cache: `writeStageTemplates` in a process of its own. */
const synthInChild: Synth = async (stage, outdir) =>
  JSON.parse(await runOk(process.execPath, ['--import', 'tsx', join(projectRoot, 'test/support/stage-templates-process.ts'), stage, outdir], { cwd: projectRoot, timeout: 580_000 }));

/** Synthesizes `stage` into `<root>/<stage>/` and writes `<root>/<stage>.json`; the caller holds the lock. */
async function synthesize(stage: string, root: string, synth: Synth): Promise<void> {
  const tmp = join(root, `${stage}.tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  const names = await synth(stage, tmp);
  rmSync(join(root, stage), { recursive: true, force: true });
  renameSync(tmp, join(root, stage));
  const manifest = join(root, `${stage}.json.tmp-${process.pid}`);
  const fd = openSync(manifest, 'w');
  writeSync(fd, JSON.stringify(names));
  closeSync(fd);
  renameSync(manifest, join(root, `${stage}.json`));
}

/** Removes the directories of other keys left more than a day ago (one per change to the inputs). */
function pruneOtherKeys(key: string): void {
  const dayAgo = Date.now() - 24 * 3600_000;
  for (const other of readdirSync(synthCacheRoot)) {
    if (other === key) continue;
    const dir = join(synthCacheRoot, other);
    try {
      if (statSync(dir).mtimeMs < dayAgo) rmSync(dir, { recursive: true, force: true });
    } catch (err) {
      // Another worker removed it first.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

async function load(stage: string): Promise<CachedStage> {
  const key = synthKey();
  const root = join(synthCacheRoot, key);
  if (!existsSync(root)) {
    mkdirSync(root, { recursive: true });
    pruneOtherKeys(key);
  }
  return stageIn(root, stage);
}

/** A stage's templates from the key's directory `root`: there already, or synthesized by `synth` under the stage's lock. */
export async function stageIn(root: string, stage: string, synth: Synth = synthInChild): Promise<CachedStage> {
  const done = join(root, `${stage}.json`);
  const lock = join(root, `${stage}.lock`);
  for (;;) {
    if (existsSync(done)) return cached(stage, join(root, stage), JSON.parse(readFileSync(done, 'utf8')));
    let fd: number;
    try {
      fd = openSync(lock, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // Another process synthesizes the stage: wait for its result, or for its lock to go.
      const watcher = watchDir(root, 2_000);
      if (staleLock(lock)) rmSync(lock, { force: true });
      else if (!existsSync(done) && existsSync(lock)) await watcher.next;
      watcher.close();
      continue;
    }
    try {
      writeSync(fd, String(process.pid));
      closeSync(fd);
      await synthesize(stage, root, synth);
    } finally {
      rmSync(lock, { force: true });
    }
  }
}

const loaded = new Map<string, Promise<CachedStage>>();

/** The stage's templates as one synth of the run writes them (see above); one synth per key and stage. */
export function cachedStage(stage: string): Promise<CachedStage> {
  if (!loaded.has(stage)) loaded.set(stage, load(stage));
  return loaded.get(stage)!;
}
