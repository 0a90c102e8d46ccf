import { describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { javaProcessesFor, startService, twinDynamo } from '#support/service';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const adminToken = 'start-test-admin-token-5555';

/** Runs the twin as `npm start` does, in its own process, and waits for its ready line. */
const start = (dataDir: string) => startService(dataDir, { ADMIN_TOKEN: adminToken });

function stopWith(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill(signal);
  });
}

describe('npm start', () => {
  it('is ready within 20 s, keeps data across a restart readable by its user only, logs no secrets and leaves no Java behind', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'despacho-start-'));
    try {
      const first = await start(dataDir);
      expect(first.seconds).toBeLessThan(20);
      const auth = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
      expect((await fetch(`${first.apiUrl}/health`)).status).toBe(200);
      // It prints the console's address, and the console is there.
      const consoleUrl = /console: (http\S+\/console)\n/.exec(first.output())?.[1];
      expect(consoleUrl).toBe(first.apiUrl.replace(/\/api$/, '/console'));
      expect((await fetch(consoleUrl!)).status).toBe(200);
      const created = await fetch(`${first.apiUrl}/v1/admin/accounts`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Persisted SA', kind: 'partner' }) });
      const account = ((await created.json()) as any).data;
      const tokenRes = await fetch(`${first.apiUrl}/v1/admin/tokens`, { method: 'POST', headers: auth, body: JSON.stringify({ account_id: account.id, name: 'n', role: 'partner' }) });
      const partnerToken = ((await tokenRes.json()) as any).data.token;
      await fetch(`${first.apiUrl}/v1/me`, { headers: { authorization: `Bearer ${partnerToken}` } });

      expect(await stopWith(first.child, 'SIGTERM')).toBe(0);
      expect(javaProcessesFor(dataDir)).toEqual([]);
      // Its data is its user's alone: nobody else on the machine reads the database or a key.
      const entries = (readdirSync(dataDir, { recursive: true }) as string[]).map((p) => join(dataDir, p));
      // One database, the data directory's own (its access key's): no other key's empty one beside it.
      expect(entries.filter((p) => p.endsWith('.db')).map((p) => p.split('/').pop())).toEqual([`${readFileSync(join(dataDir, 'dynamodb', 'access-key'), 'utf8').trim()}_local.db`]);
      const open = entries.map((p) => ({ p, mode: statSync(p).mode })).filter(({ mode }) => (mode & 0o077) !== 0).map(({ p, mode }) => `${p} ${(mode & 0o777).toString(8)}`);
      expect(open).toEqual([]);
      const logs = first.output();
      expect(logs).toContain('"route":"GET /api/v1/me"');
      expect(logs).not.toContain(adminToken);
      expect(logs).not.toContain(partnerToken);

      // A data directory written before the twin closed it (0644 and 0755) is closed at the next start.
      for (const p of entries) chmodSync(p, statSync(p).isDirectory() ? 0o755 : 0o644);
      const second = await start(dataDir);
      expect(entries.filter((p) => (statSync(p).mode & 0o077) !== 0)).toEqual([]);
      const list = await fetch(`${second.apiUrl}/v1/admin/accounts`, { headers: auth });
      expect(((await list.json()) as any).data.map((a: { name: string }) => a.name)).toContain('Persisted SA');
      // DynamoDB Local listens on every interface (it cannot bind to loopback): its data is behind
      // the data directory's access key. Another key, the AWS CLI's usual `local` included, finds
      // an empty engine; the key in the data directory finds the twin's table.
      const tables = async (accessKeyId?: string) => {
        const client = twinDynamo(dataDir, accessKeyId);
        try {
          return (await client.send(new ListTablesCommand({}))).TableNames;
        } finally {
          client.destroy();
        }
      };
      expect(await tables('stranger')).toEqual([]);
      expect(await tables('local')).toEqual([]);
      expect(await tables()).toEqual(['despacho']);
      expect(await stopWith(second.child, 'SIGINT')).toBe(0);
      expect(javaProcessesFor(dataDir)).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
