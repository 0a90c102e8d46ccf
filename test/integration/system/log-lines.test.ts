import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { manualClock, useClock, useSystemClock } from '#infra/clock';
import { useTwin } from '#support/twin';
import { manifest, submitPath } from '#support/manifests';
import { useLogLines } from '#support/logs';

const t = useTwin();
const lines = useLogLines();

describe('the log lines of a request and of the work it starts', () => {
  it("find a manifest's intake and every pipeline task by its batch id, with no personal data", async () => {
    const { token } = await t.account('Logged Couriers');
    const key = randomUUID();
    const body = manifest(3);
    expect((await t.submit(submitPath(), { token, body, headers: { 'idempotency-key': key } })).status).toBe(202);
    for (let i = 0; i < 200 && (await t.twin.jobs.runDue()) > 0; i++);
    const batchId = (await t.call('GET', `/v1/couriers/default/webhook/${key}/status`, { token })).body.batch_id as string;
    expect(batchId).toEqual(expect.any(String));

    const ofBatch = lines.filter((l) => l.batchId === batchId);
    // The twin's invocations carry their request id as Lambda prints it, and the worker's record its message id.
    expect(ofBatch.find((l) => l.message === 'manifest intake written')).toMatchObject({ level: 'INFO', ms: expect.any(Number), messageId: expect.any(String), function_request_id: expect.any(String) });
    expect(ofBatch.filter((l) => l.message === 'pipeline task').every((l) => typeof l.function_request_id === 'string' && l.runId)).toBe(true);
    const tasks = ofBatch.filter((l) => l.message === 'pipeline task').map((l) => (l.stage ? `${l.task}:${l.stage}` : l.task));
    expect(new Set(tasks)).toEqual(new Set(['prepare', 'stage-page:classification', 'stage-page:webservices', 'stage-page:ai', 'stage-page:calculations', 'stage-done:classification', 'stage-done:webservices', 'stage-done:ai', 'stage-done:calculations', 'finish']));
    const text = JSON.stringify(lines);
    for (const it of body.items) {
      expect(text).not.toContain(it.consigneeName);
      expect(text).not.toContain(it.consigneeIdNumber);
    }
  });

  it('name in the access log the document a request asked for', async () => {
    const { token } = await t.account('Logged Documents', { kind: 'broker' });
    const id = 'doc_' + randomUUID().replace(/-/g, '').slice(0, 20);
    const res = await t.call('GET', `/v1/transport/documents/${id}`, { token });
    const line = lines.find((l) => l.message === 'request' && l.route === 'GET /api/v1/transport/documents/{id}');
    expect(line).toMatchObject({ status: res.status, ids: { id }, requestId: expect.any(String) });
  });

  it('log a client that hangs up half-way through its body as one WARN naming the route, with no stack and no ERROR', async () => {
    const { token } = await t.account('Hung Up Couriers');
    const url = new URL(t.twin.apiUrl);
    const body = JSON.stringify(manifest(50));
    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    socket.write(
      `POST ${url.pathname}${submitPath()} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    // Half the body has reached the server once the socket has flushed it; then the client is gone.
    await new Promise<void>((resolve) => socket.write(body.slice(0, body.length / 2), () => resolve()));
    socket.destroy();
    const isAbort = (l: Record<string, any>) => l.message === 'client closed the request before its body was read';
    await vi.waitFor(() => expect(lines.some(isAbort)).toBe(true), { timeout: 10_000, interval: 20 });
    // A request after it has been answered: anything the abort still had to log is logged by now.
    expect((await t.call('GET', '/health', { token: null })).status).toBe(200);
    const aborted = lines.filter(isAbort);
    expect(aborted).toEqual([expect.objectContaining({ level: 'WARN', route: 'POST /api/v1/couriers/{courier}/manifests/webhook' })]);
    expect(JSON.stringify(aborted)).not.toMatch(/stack|at .+\.ts:\d+/);
    expect(lines.filter((l) => l.level === 'ERROR')).toEqual([]);
  });

  it("name on the route's rate-limit line the request id the refused request was answered with", async () => {
    const { token } = await t.account('Logged Limits');
    // A still clock keeps the 61 calls in one minute window.
    useClock(manualClock(new Date('2026-11-20T10:00:05Z')));
    try {
      for (let i = 0; i < 60; i++) await t.call('GET', '/v1/me', { token });
      const res = await t.call('GET', '/v1/me', { token, headers: { 'x-request-id': 'partner-call-61' } });
      expect(res.status).toBe(429);
      expect(res.headers.get('x-request-id')).toBe('partner-call-61');
      expect(lines.find((l) => l.message === 'rate limited')).toMatchObject({ level: 'WARN', requestId: 'partner-call-61', route: 'GET /api/v1/me', group: 'account' });
    } finally {
      useSystemClock();
    }
  });
});
