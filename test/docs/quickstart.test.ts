import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeBlocks, repoRoot, runScript, shellEnv, startTwinBlock, stopTwinBlock } from '#support/doc-shell';

const page = 'docs/partners/quickstart.md';
/** What the quickstart leaves in `scratch/` (ignored by git), removed before and after the run so a stale log proves nothing. */
const made = ['receiver.mjs', 'received.log', 'manifest.json', 'QS-0001.csv'].map((f) => join(repoRoot, 'scratch', f));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

describe('the quickstart (docs/partners/quickstart.md)', () => {
  it('asks for no tool a fresh machine lacks and no scope a step does not use', () => {
    const all = [...codeBlocks(page, 'sh quickstart'), ...codeBlocks(page, 'sh')].join('\n');
    expect(all).not.toMatch(/\b(uuidgen|jq|python3?|wget)\b/);
    const scopes = [...all.matchAll(/--scopes (\S+)/g)].map((m) => m[1]);
    expect(scopes).toEqual(['manifests:read,manifests:write', 'webhooks:write']);
    expect(codeBlocks(page, 'sh'), 'the install step, the one block the test does not run').toEqual(['npm ci']);
  });

  it('runs as written against a twin it starts: a manifest processed and downloaded, and webhooks verified by the stock standardwebhooks library', async () => {
    const [startBlock, ...rest] = codeBlocks(page, 'sh quickstart');
    expect(startBlock, 'the first block starts the twin').toMatch(/^ADMIN_TOKEN=\S+ WEBHOOK_LOCAL_RECEIVERS=1 npm start$/);
    for (const f of made) rmSync(f, { force: true });

    const dataDir = mkdtempSync(join(tmpdir(), 'despacho-quickstart-'));
    const twin = startTwinBlock(startBlock!, dataDir);
    const started = Date.now();
    try {
      const { port } = await twin.ready;
      // The only changes: the twin's port (3000) and the receiver's (4000) are free ones.
      const receiverPort = await freePort();
      const script = rest
        .join('\n')
        .replace(/\blocalhost:3000\b/g, `localhost:${port}`)
        .replace(/\b4000\b/g, String(receiverPort));
      const result = await runScript(script, shellEnv({}), 150_000);
      const seen = `${result.timedOut ? 'TIMED OUT\n' : ''}${result.stdout}\n${result.stderr}\n${twin.output().slice(-4000)}`;
      expect(result.code, seen).toBe(0);

      expect(result.stdout, seen).toContain('"scopes":["manifests:read","manifests:write"]');
      expect(result.stdout, seen).toMatch(/"status_code":204/);
      expect(result.stdout, seen).toMatch(/^completed 100% *$/m);
      expect(result.stdout, seen).toMatch(/"status":"completed","overall_progress":100/);
      expect(result.stdout, seen).toMatch(/^awb_number,/m);
      const log = readFileSync(made[1], 'utf8');
      expect(log).toMatch(/^verified webhook\.test \S+$/m);
      expect(log).toMatch(/^verified manifest\.processed evt_\S+$/m);
      expect(log).not.toContain('refused');
      expect(Date.now() - started, 'well inside the 15 minutes the page promises').toBeLessThan(5 * 60_000);
    } finally {
      await stopTwinBlock(twin.child, dataDir);
      rmSync(dataDir, { recursive: true, force: true });
      for (const f of made) rmSync(f, { force: true });
    }
  }, 240_000);
});
