import { describe, expect, it } from 'vitest';
import { run } from '../../../bin/cli';
import { adminToken, useTwin } from '../../support/twin';
import { inspectFile } from '../../../lambdas/core/documents/files';
import { samplePdf, samplePng } from '../../../bin/sample-files';

const t = useTwin();

describe('cli demo', () => {
  it('seeds documents in every state through the API', async () => {
    let out = '';
    const io = { env: { DESPACHO_URL: t.twin.apiUrl, DESPACHO_TOKEN: adminToken }, stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (out += s) } };
    expect(await run(['demo'], io)).toBe(0);
    const list = await t.call('GET', '/v1/transport/documents?per_page=100');
    const states = new Set(list.body.data.map((d: { state: string }) => d.state));
    expect([...states].sort()).toEqual(['approved', 'rejected', 'superseded', 'uploaded', 'validated']);
    const partnerToken = /Partner token \(shown once\):\n\s+(\S+)/.exec(out)![1];
    expect((await t.call('GET', '/v1/me', { token: partnerToken })).body.data.token.role).toBe('partner');
  });

  it('builds sample files the upload check accepts', () => {
    expect(inspectFile('a.pdf', samplePdf('x'))).toMatchObject({ ok: true, mimeType: 'application/pdf' });
    expect(inspectFile('a.png', samplePng())).toMatchObject({ ok: true, mimeType: 'image/png' });
  });
});
