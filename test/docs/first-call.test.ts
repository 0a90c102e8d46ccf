import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeBlocks, runScript, shellEnv, startTwinBlock, stopTwinBlock } from '#support/doc-shell';

describe("the README's first call", () => {
  it('runs against the twin as written and its last call answers 200 with the new account', async () => {
    const [startBlock, ...rest] = codeBlocks('README.md', 'sh', 'First call');
    expect(startBlock, 'the first block starts the twin').toMatch(/^ADMIN_TOKEN=\S+ npm start$/m);
    expect(rest.length, 'a block for the other shell').toBeGreaterThan(0);
    const accountName = /accounts create --name "([^"]+)"/.exec(rest.join('\n'))?.[1];
    expect(accountName, 'the block creates an account by name').toBeTruthy();

    const dataDir = mkdtempSync(join(tmpdir(), 'despacho-first-call-'));
    const twin = startTwinBlock(startBlock!, dataDir);
    try {
      const { port } = await twin.ready;
      // The one change: the README's port (3000) is the free port the twin took (PORT=0).
      const script = rest.join('\n').replace(/\b(?:localhost|127\.0\.0\.1):3000\b/g, `localhost:${port}`);
      const result = await runScript(script, shellEnv({}), 120_000);
      expect(result.code, `${result.stdout}\n${result.stderr}\n${twin.output()}`).toBe(0);

      const lines = result.stdout.trimEnd().split('\n');
      expect(lines.at(-1)).toBe('HTTP 200');
      const body = JSON.parse(lines.at(-2)!);
      expect(body).toMatchObject({ success: true, data: { account: { name: accountName, kind: 'partner' }, token: { role: 'partner' } } });
    } finally {
      await stopTwinBlock(twin.child, dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
