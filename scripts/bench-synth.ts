/**
 * `npm run bench:synth [-- <stage>]`: times `cdk synth` of a stage (prod by default) with the
 * reference settings (test/support/cdk.ts), bundling included, three ways in one run: before
 * (`-c bundleCache=off`: NodejsFunction bundles function by function, as before issue 43 item 7),
 * with an empty bundle cache (every function bundled in one esbuild run, lib/prebundle.ts, as the
 * pipeline's plan job runs it), then again with the cache that filled (nothing changed: every
 * bundle reused, lib/bundle-cache.ts). Prints the seconds of each and checks that the last two
 * wrote the same templates (the same asset hashes: a reused bundle is byte for byte the one
 * bundling made). Issue 43's target: prod under 2 minutes on this machine when quiet.
 * `-- <stage> --warm` runs only the last; `--no-before` skips the first.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { referenceProd, referenceStaging } from '#support/cdk';

const stage = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 'prod';
const warmOnly = process.argv.includes('--warm');
const before = !warmOnly && !process.argv.includes('--no-before');
const reference = stage === 'prod' ? referenceProd : stage === 'staging' ? referenceStaging : {};
const flags = Object.entries(reference).flatMap(([k, v]) => ['-c', `${k}=${Array.isArray(v) ? v.join(',') : String(v)}`]);
const cacheDir = join(process.cwd(), 'node_modules', '.cache', 'despacho-bundles');

function synth(extra: string[] = []): { seconds: number; out: string } {
  const out = mkdtempSync(join(tmpdir(), `synth-${stage}-`));
  const started = performance.now();
  const run = spawnSync('npx', ['cdk', 'synth', '--all', '--quiet', '-o', out, '-c', `stage=${stage}`, ...flags, ...extra], { stdio: ['ignore', 'inherit', 'inherit'] });
  const seconds = (performance.now() - started) / 1000;
  if (run.status !== 0) {
    console.error(`cdk synth of ${stage} failed (exit ${run.status})`);
    process.exit(1);
  }
  return { seconds, out };
}

const templates = (dir: string) =>
  new Map(
    readdirSync(dir)
      .filter((f) => f.endsWith('.template.json'))
      .map((f) => [f, readFileSync(join(dir, f), 'utf8')]),
  );

const figures: string[] = [];
let off: { seconds: number; out: string } | undefined;
if (before) {
  off = synth(['-c', 'bundleCache=off']);
  figures.push(`before (function by function, no cache): ${off.seconds.toFixed(1)} s`);
}
let cold: { seconds: number; out: string } | undefined;
if (!warmOnly) {
  const aside = `${cacheDir}.aside-${process.pid}`;
  if (existsSync(cacheDir)) renameSync(cacheDir, aside);
  try {
    cold = synth();
  } finally {
    rmSync(aside, { recursive: true, force: true });
  }
  figures.push(`empty bundle cache (every function bundled, one esbuild run): ${cold.seconds.toFixed(1)} s`);
}
const warm = synth();
figures.push(`bundle cache warm (nothing changed): ${warm.seconds.toFixed(1)} s`);
console.log(`\ncdk synth ${stage}, bundling included:\n${figures.map((f) => `  ${f}`).join('\n')}`);
if (cold) {
  const a = templates(cold.out);
  const b = templates(warm.out);
  const differ = [...a].filter(([f, t]) => b.get(f) !== t).map(([f]) => f);
  console.log(differ.length === 0 && a.size === b.size ? `the ${a.size} templates of both synths are identical` : `TEMPLATES DIFFER: ${differ.join(', ')}`);
  if (differ.length || a.size !== b.size) process.exitCode = 1;
  if (off) {
    // Bundled either way, the templates differ only in the assets' hashes (the bundles' source
    // maps name the folder they were built in), the function versions' logical ids, which hash
    // the code's, and the metadata `aws:asset:is-bundled` (a bundle from the cache is an asset
    // the CDK did not bundle; CloudFormation ignores metadata): handlers, environment and
    // permissions are the same.
    const masked = (t: string) =>
      t
        .replace(/\b[0-9a-f]{64}\b/g, 'ASSET')
        .replace(/(CurrentVersion[0-9A-F]{8})[0-9a-f]{32}/g, '$1VERSION')
        .replace(/"aws:asset:is-bundled":\s*(true|false)/g, '"aws:asset:is-bundled":BUNDLED');
    const before = templates(off.out);
    const changed = [...before].filter(([f, t]) => masked(t) !== masked(a.get(f) ?? '')).map(([f]) => f);
    console.log(changed.length === 0 && before.size === a.size ? `and the same as bundled function by function but for the assets' hashes` : `TEMPLATES DIFFER FROM THE FUNCTION-BY-FUNCTION SYNTH: ${changed.join(', ')}`);
    for (const f of changed.slice(0, 3)) {
      // Where they part, so the difference can be read (pretty-printed, masked).
      const lines = (t: string) => JSON.stringify(JSON.parse(masked(t)), null, 1).split('\n');
      const [x, y] = [lines(before.get(f)!), lines(a.get(f) ?? '{}')];
      const i = x.findIndex((l, n) => l !== y[n]);
      console.log(`  ${f}, line ${i + 1}:\n    function by function: ${x.slice(Math.max(0, i - 3), i + 2).join(' ').slice(0, 600)}\n    one esbuild run:      ${y.slice(Math.max(0, i - 3), i + 2).join(' ').slice(0, 600)}`);
    }
    if (changed.length || before.size !== a.size) process.exitCode = 1;
    rmSync(off.out, { recursive: true, force: true });
  }
  rmSync(cold.out, { recursive: true, force: true });
}
rmSync(warm.out, { recursive: true, force: true });
