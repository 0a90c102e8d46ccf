/**
 * `npm run bench:synth [-- <stage>]`: times `cdk synth` of a stage (prod by default) with the
 * reference settings (test/support/cdk.ts), bundling included, as the pipeline's plan job runs it,
 * and prints the seconds. Issue 43's target: prod under 2 minutes on this machine when quiet.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { referenceProd, referenceStaging } from '#support/cdk';

const stage = process.argv[2] ?? 'prod';
const reference = stage === 'prod' ? referenceProd : stage === 'staging' ? referenceStaging : {};
const flags = Object.entries(reference).flatMap(([k, v]) => ['-c', `${k}=${Array.isArray(v) ? v.join(',') : String(v)}`]);
const out = mkdtempSync(join(tmpdir(), `synth-${stage}-`));
const started = performance.now();
const run = spawnSync('npx', ['cdk', 'synth', '--all', '--quiet', '-o', out, '-c', `stage=${stage}`, ...flags], { stdio: ['ignore', 'inherit', 'inherit'] });
const seconds = (performance.now() - started) / 1000;
rmSync(out, { recursive: true, force: true });
if (run.status !== 0) {
  console.error(`cdk synth of ${stage} failed (exit ${run.status})`);
  process.exit(1);
}
console.log(`cdk synth ${stage} (bundling included): ${seconds.toFixed(1)} s`);
