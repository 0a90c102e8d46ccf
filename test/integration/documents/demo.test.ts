import { describe, expect, it } from 'vitest';
import { run } from '#bin/cli';
import { adminToken, useTwin } from '#support/twin';
import { inspectFile } from '#core/documents/files';
import { samplePdf, samplePng } from '#bin/sample-files';

// The job dispatcher runs (the demo's marketplace sync is a queued job).
const t = useTwin({ jobPollMs: 50 });

describe('cli demo', () => {
  it('seeds documents in every state and orders across channels and statuses through the API', async () => {
    let out = '';
    const io = { env: { DESPACHO_URL: t.twin.apiUrl, DESPACHO_TOKEN: adminToken }, stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (out += s) } };
    const code = await run(['demo'], io);
    if (code) console.log(out);
    expect(code).toBe(0);
    const list = await t.call('GET', '/v1/transport/documents?per_page=100');
    const states = new Set(list.body.data.map((d: { state: string }) => d.state));
    expect([...states].sort()).toEqual(['approved', 'rejected', 'superseded', 'uploaded', 'validated']);
    const partnerToken = /Partner token \(shown once\):\n\s+(\S+)/.exec(out)![1];
    expect((await t.call('GET', '/v1/me', { token: partnerToken })).body.data.token.role).toBe('partner');

    const orders = (await t.call('GET', '/v1/orders?per_page=100', { token: partnerToken })).body.data.orders as { channel: string; status: string; fulfillment_status: string }[];
    expect([...new Set(orders.map((o) => o.channel))].sort()).toEqual(['amazon', 'meli', 'shopify', 'web']);
    for (const status of ['pending', 'processing', 'shipped', 'delivered', 'cancelled']) expect(orders.some((o) => o.status === status), status).toBe(true);
    for (const f of ['unfulfilled', 'partial', 'fulfilled']) expect(orders.some((o) => o.fulfillment_status === f), f).toBe(true);
    expect(out).toMatch(/sync sync_\S+ completed/);
  });

  it('builds sample files the upload check accepts', () => {
    expect(inspectFile('a.pdf', samplePdf('x'))).toMatchObject({ ok: true, mimeType: 'application/pdf' });
    expect(inspectFile('a.png', samplePng())).toMatchObject({ ok: true, mimeType: 'image/png' });
  });
});
