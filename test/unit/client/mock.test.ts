import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { once } from 'node:events';

const root = new URL('../../../', import.meta.url).pathname;

/** A port free right now (the mock binds it a moment later). */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

let child: ChildProcess | undefined;
afterAll(() => {
  // The npm process and the Prism it runs: their own process group, ended together.
  if (child?.pid && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
});

describe('npm run mock (Prism over clients/openapi.json)', () => {
  it('starts and answers a route with its documented example, and refuses one without a token as the service does', async () => {
    const port = await freePort();
    child = spawn('npm', ['run', 'mock'], { cwd: root, env: { ...process.env, MOCK_PORT: String(port) }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const onData = (c: Buffer) => {
        output += String(c);
        if (/Prism is listening/.test(output)) resolve();
      };
      child!.stdout!.on('data', onData);
      child!.stderr!.on('data', onData);
      child!.once('exit', (code) => reject(new Error(`the mock exited (${code}) before listening:\n${output.slice(-2000)}`)));
    });
    const health = await fetch(`http://127.0.0.1:${port}/api/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ success: true, data: { status: 'ok' } });
    expect((await fetch(`http://127.0.0.1:${port}/api/v1/events`)).status).toBe(401);
    const events = await fetch(`http://127.0.0.1:${port}/api/v1/events`, { headers: { authorization: 'Bearer any-token' } });
    expect(events.status).toBe(200);
    expect(await events.json()).toMatchObject({ success: true, data: expect.any(Array), meta: { has_more: expect.any(Boolean) } });
  }, 60_000);
});
