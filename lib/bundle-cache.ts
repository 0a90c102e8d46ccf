import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { browserScriptsFor, lazyModulesFor, workerScriptsFor } from './bundling';

/**
 * Function bundles kept between synths (issue 43 item 7), in `node_modules/.cache/despacho-bundles`:
 * a synth reuses a function's bundle when nothing it was built from changed, and bundles again
 * otherwise. A bundle's key hashes
 *
 * - what every bundle depends on: the lock file (every package's version, esbuild's too),
 *   package.json (the `#` import paths), tsconfig.json, lib/bundling.ts, this file, and the
 *   bundling options;
 * - its entry and every input esbuild's metafile listed when it was last built: the path of each,
 *   and the content of each of ours (a package's files are the lock file's);
 * - for a bundle that serves a browser script, the content of every file under lambdas/ (the
 *   script is compiled from sources the bundle itself does not import); for one with a worker
 *   script or a lazy module beside it, that script's entry and data files.
 *
 * So an edit to a file a bundle contains, a new import in one (the file changed), an upgraded
 * package or a changed option makes a new key. What it cannot see: a new file that module
 * resolution would now prefer for an import that did not change (a `foo.ts` beside an imported
 * `foo/index.ts`); `-c bundleCache=off` (or deleting the folder) bundles everything again.
 */
export class BundleCache {
  readonly dir: string;
  private readonly salt: string;
  private readonly fileHashes = new Map<string, string>();
  private treeHash?: string;

  constructor(
    readonly root: string,
    options: unknown,
  ) {
    this.dir = join(root, 'node_modules', '.cache', 'despacho-bundles');
    const h = createHash('sha256');
    for (const f of ['package-lock.json', 'package.json', 'tsconfig.json', 'lib/bundling.ts', 'lib/bundle-cache.ts']) h.update(f).update(this.hashOf(f));
    this.salt = h.update(JSON.stringify(options)).digest('hex');
  }

  private hashOf(rel: string): string {
    const abs = join(this.root, rel);
    let hash = this.fileHashes.get(abs);
    if (hash === undefined) {
      hash = existsSync(abs) ? createHash('sha256').update(readFileSync(abs)).digest('hex') : 'missing';
      this.fileHashes.set(abs, hash);
    }
    return hash;
  }

  /** Every file under lambdas/, hashed once per synth. */
  private lambdasTree(): string {
    if (this.treeHash) return this.treeHash;
    const h = createHash('sha256');
    const walk = (rel: string) => {
      for (const e of readdirSync(join(this.root, rel), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
        const p = `${rel}/${e.name}`;
        if (e.isDirectory()) walk(p);
        else if (e.isFile()) h.update(p).update(this.hashOf(p));
      }
    };
    walk('lambdas');
    return (this.treeHash = h.digest('hex'));
  }

  private slot(entry: string): string {
    return createHash('sha256').update(entry).digest('hex').slice(0, 16);
  }

  /** Where the bundling hook leaves the metafile of `entry` (a path from the repository root) for `store`. */
  metaPath(entry: string): string {
    return join(this.dir, 'meta', `${this.slot(entry)}.json`);
  }

  /** The key of `entry` built from `inputs` (paths from the repository root, as esbuild's metafile names them). */
  key(entry: string, inputs: string[]): string {
    const h = createHash('sha256').update(this.salt).update(entry);
    for (const input of [...inputs].sort()) h.update('\0').update(input).update(input.startsWith('node_modules/') ? '' : this.hashOf(input));
    if (browserScriptsFor(inputs).length) h.update(this.lambdasTree());
    for (const extra of [...workerScriptsFor(inputs), ...lazyModulesFor(inputs)]) {
      h.update(extra.entry).update(this.hashOf(extra.entry));
      for (const data of 'data' in extra ? extra.data : []) h.update(data).update(this.hashOf(data));
    }
    return h.digest('hex').slice(0, 32);
  }

  /** The folder of `entry`'s bundle if one was built from what is there now. */
  hit(entry: string): string | undefined {
    const manifest = join(this.dir, 'inputs', `${this.slot(entry)}.json`);
    if (!existsSync(manifest)) return undefined;
    const { inputs } = JSON.parse(readFileSync(manifest, 'utf8')) as { inputs: string[] };
    const folder = join(this.dir, 'bundles', this.key(entry, inputs));
    return existsSync(join(folder, 'index.mjs')) ? folder : undefined;
  }

  /**
   * Keeps the bundle just built for `entry` (its staged folder), under the key of the inputs its
   * metafile lists; written to a temporary folder and renamed, so a synth stopped midway leaves no
   * half bundle under a key.
   */
  store(entry: string, built: string): void {
    const meta = this.metaPath(entry);
    if (!existsSync(meta)) return;
    const inputs = Object.keys((JSON.parse(readFileSync(meta, 'utf8')) as { inputs: Record<string, unknown> }).inputs);
    rmSync(meta);
    const folder = join(this.dir, 'bundles', this.key(entry, inputs));
    if (!existsSync(folder)) {
      const temp = `${folder}.${process.pid}.tmp`;
      rmSync(temp, { recursive: true, force: true });
      cpSync(built, temp, { recursive: true });
      renameSync(temp, folder);
    }
    mkdirSync(join(this.dir, 'inputs'), { recursive: true });
    writeFileSync(join(this.dir, 'inputs', `${this.slot(entry)}.json`), JSON.stringify({ inputs }));
  }
}
