import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';

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

interface Operation {
  operationId: string;
  security?: unknown[];
  parameters?: { name: string; in: string; example?: unknown }[];
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, unknown>;
  'x-success-status': number;
}
const doc = JSON.parse(readFileSync(`${root}clients/openapi.json`, 'utf8')) as { paths: Record<string, Record<string, Operation>> };
const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method: method.toUpperCase(), op })));

/** The operation's example request: its parameters' and body's examples, and a token unless public. */
function exampleRequest(path: string, op: Operation): { url: string; init: RequestInit } {
  const params = op.parameters ?? [];
  const url = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(params.find((p) => p.name === name && p.in === 'path')?.example ?? 'x')));
  const query = new URLSearchParams(params.filter((p) => p.in === 'query' && p.example !== undefined).map((p): [string, string] => [p.name, String(p.example)]));
  const headers: Record<string, string> = op.security?.length === 0 ? {} : { authorization: 'Bearer any-token' };
  let body: string | FormData | undefined;
  const [type, content] = Object.entries(op.requestBody?.content ?? {})[0] ?? [];
  if (type === 'multipart/form-data') {
    const form = new FormData();
    for (const [k, v] of Object.entries((content.example ?? {}) as Record<string, unknown>)) {
      if (k === 'file') form.append(k, new Blob(['{}'], { type: 'application/json' }), 'manifiesto.json');
      else form.append(k, String(v));
    }
    body = form;
  } else if (type) {
    headers['content-type'] = type;
    body = typeof content.example === 'string' ? content.example : JSON.stringify(content.example ?? {});
  }
  return { url: `${url}${query.size ? `?${query}` : ''}`, init: { headers, body } };
}

describe('npm run mock (Prism over clients/openapi.json)', () => {
  let port = 0;
  it('starts and answers a route with its documented example, and refuses one without a token as the service does', async () => {
    port = await freePort();
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

  it("answers every operation's example request with the route's own success status, and no status the document does not list", async () => {
    const wrong: string[] = [];
    for (const { path, method, op } of operations) {
      const { url, init } = exampleRequest(path, op);
      const res = await fetch(`http://127.0.0.1:${port}${url}`, { ...init, method });
      await res.arrayBuffer();
      if (res.status !== op['x-success-status'] || !(String(res.status) in op.responses)) wrong.push(`${method} ${path}: ${res.status}, documented ${op['x-success-status']}`);
    }
    expect(wrong, wrong.join('\n')).toEqual([]);
    expect(operations.length).toBeGreaterThan(100);
  }, 60_000);

  it('answers a submission with 202 and the recorded answer, and a body that breaks the schema with the service\'s 422 shape', async () => {
    const submit = operations.find((o) => o.op.operationId === 'CouriersSubmit')!;
    const { url, init } = exampleRequest(submit.path, submit.op);
    const queued = await fetch(`http://127.0.0.1:${port}${url}`, { ...init, method: 'POST' });
    expect(queued.status).toBe(202);
    expect(await queued.json()).toMatchObject({ success: true, status: 'queued' });
    const invalid = await fetch(`http://127.0.0.1:${port}${url}`, { method: 'POST', headers: { authorization: 'Bearer any-token', 'content-type': 'application/json' }, body: '{}' });
    expect(invalid.status).toBe(422);
    expect(await invalid.json()).toEqual({ success: false, message: 'The given data was invalid.', error: 'validation_failed', errors: { mawbNumber: ['Required.'], items: ['Required.'] } });
  });
});
