import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runOk } from '#support/run';
import { stageIn, synthInputs, synthKey, type Synth } from '#support/stage-cache';

/**
 * The synth cache's lock and key (test/support/stage-cache.ts), with a synth that writes one
 * template after a while instead of the CDK's: the real one is what every test reading
 * `cachedStage` runs on.
 */
describe('the synth cache', () => {
  let root: string;
  let calls: number;
  const synth: Synth = async (stage, outdir) => {
    calls++;
    mkdirSync(outdir);
    await new Promise((resolve) => setTimeout(resolve, 300));
    writeFileSync(join(outdir, `${stage}.template.json`), JSON.stringify({ Resources: { Queue: { Type: 'AWS::SQS::Queue' } } }));
    return { files: [`${stage}.template.json`], data: `${stage}.template.json`, api: `${stage}.template.json`, routes: {} };
  };
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'despacho-synth-cache-'));
    calls = 0;
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('synthesizes a stage once for two callers at the same time: the second waits on the lock and reads the first one\'s templates', async () => {
    const [a, b] = await Promise.all([stageIn(root, 'dev', synth), stageIn(root, 'dev', synth)]);
    expect(calls).toBe(1);
    expect(b.dir).toBe(a.dir);
    expect(b.json(b.data)).toEqual({ Resources: { Queue: { Type: 'AWS::SQS::Queue' } } });
    expect(existsSync(join(root, 'dev.lock'))).toBe(false);
    // A later caller (another file of the run) reads it without a synth; another stage has its own.
    await stageIn(root, 'dev', synth);
    expect(calls).toBe(1);
    await stageIn(root, 'prod', synth);
    expect(calls).toBe(2);
  });

  it('takes over a lock whose process no longer runs', async () => {
    const gone = Number(await runOk(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']));
    writeFileSync(join(root, 'dev.lock'), String(gone));
    const s = await stageIn(root, 'dev', synth);
    expect(calls).toBe(1);
    expect(s.template(s.api).findResources('AWS::SQS::Queue')).toHaveProperty('Queue');
    expect(existsSync(join(root, 'dev.lock'))).toBe(false);
  });

  it('leaves no lock and no result after a synth that failed, so the next caller synthesizes again', async () => {
    await expect(stageIn(root, 'dev', async () => Promise.reject(new Error('AwsSolutions-S1 on Careless/Bucket')))).rejects.toThrow(/AwsSolutions-S1/);
    expect(existsSync(join(root, 'dev.lock'))).toBe(false);
    expect(existsSync(join(root, 'dev.json'))).toBe(false);
    await stageIn(root, 'dev', synth);
    expect(calls).toBe(1);
  });

  it('keys on the sources, the settings and the environment the synth reads, and on nothing else', () => {
    const inputs = synthInputs();
    for (const file of ['lib/app.ts', 'lib/stages.ts', 'lambdas/catalog/index.ts', 'lambdas/catalog/access.json', 'cdk.json', 'package-lock.json', 'tsconfig.json', 'test/support/cdk.ts']) {
      expect(inputs, file).toContain(file);
    }
    const env = { PATH: '/usr/bin' };
    const key = synthKey(env);
    expect(synthKey({ ...env })).toBe(key);
    expect(synthKey({ ...env, HOME: '/elsewhere' })).toBe(key);
    expect(synthKey({ ...env, DESPACHO_TRACING: 'off' })).not.toBe(key);
    expect(synthKey({ ...env, DESPACHO_ORDER_SYNC_EVERY_MINUTES: '15' })).not.toBe(key);
    expect(synthKey({ ...env, GITHUB_REPOSITORY: 'example/despacho' })).not.toBe(key);
  });
});
