import { describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { pdf } from '#support/files';
import { manifest, submitPath } from '#support/manifests';
import { workbook } from '#support/workbooks';
import { excelSlugs } from '#core/manifests/excel/slugs';

const t = useTwin();

describe('a call without a usable token', () => {
  it("answers no Authorization header with API Gateway's message and, on the twin, a hint naming the header", async () => {
    const res = await t.call('GET', '/v1/me', { token: null });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('Unauthorized');
    expect(res.body.hint).toMatch(/No Authorization header.*Authorization: Bearer <token>/);
  });

  it('says a header without `Bearer ` lacks it, differently from an unknown token', async () => {
    const { token } = await t.account(`Bearerless ${Math.random()}`);
    const bare = await t.call('GET', '/v1/me', { token: null, headers: { authorization: token } });
    expect(bare.status).toBe(401);
    expect(bare.body.message).toMatch(/^Authorization: the value has no "Bearer " before the token\. Send the header as `Authorization: Bearer <token>`/);
    expect(bare.text).not.toContain(token);

    const unknown = await t.call('GET', '/v1/me', { token: 'dsp_not-a-real-token-at-all' });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toMatchObject({ error: 'unauthorized', message: expect.stringMatching(/^Authorization: this bearer token is not known here or was revoked\. Check that the whole token was copied/) });
    expect(unknown.body.message).not.toBe(bare.body.message);
  });

  it('names the scheme of a header that is not Bearer, and an empty Bearer', async () => {
    const basic = await t.call('GET', '/v1/me', { token: null, headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(basic.body.message).toMatch(/^Authorization: the "Basic" scheme is not taken here\./);
    const empty = await t.call('GET', '/v1/me', { token: null, headers: { authorization: 'Bearer short' } });
    expect(empty.body.message).toMatch(/^Authorization: no token after "Bearer", or one too short/);
  });
});

describe('an Excel workbook sent to the JSON slug', () => {
  it('answers 422 on `courier` naming every Excel slug', async () => {
    const file = workbook([['MAWB', 'AWB'], ['123', '456']]);
    const form = new FormData();
    form.set('mawbNumber', 'MAWB-1');
    form.set('file', new Blob([file]), 'manifest.xlsx');
    const req = new Request('http://x', { method: 'POST', body: form });
    const res = await t.call('POST', submitPath('default'), {
      raw: Buffer.from(await req.arrayBuffer()),
      headers: { 'content-type': req.headers.get('content-type')!, 'idempotency-key': crypto.randomUUID() },
    });
    expect(res.status).toBe(422);
    for (const slug of excelSlugs) expect(res.body.errors.courier[0]).toContain(slug);
    expect(res.body.errors.courier[0]).toMatch(/^The `default` slug takes a JSON manifest/);
  });

  it('says the same of a bare .xlsx body, whatever its Content-Type', async () => {
    const res = await t.call('POST', submitPath('default'), {
      raw: workbook([['a'], ['b']]),
      headers: { 'content-type': 'application/octet-stream', 'idempotency-key': crypto.randomUUID() },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors.courier[0]).toContain('multipart/form-data');
  });

  it('still takes a JSON manifest on `default`', async () => {
    const res = await t.call('POST', submitPath('default'), { body: manifest(1), headers: { 'idempotency-key': crypto.randomUUID() } });
    expect(res.status).toBe(202);
  });
});

describe('a document approved before it was validated', () => {
  it('answers 409 saying to validate it first, with the path', async () => {
    const partner = await t.account(`Doc partner ${Math.random()}`);
    const broker = await t.account(`Doc broker ${Math.random()}`, { kind: 'broker' });
    const up = await t.call('POST', '/v1/transport/documents/upload', {
      token: partner.token,
      body: { document_type: 'awb', file_base64: pdf(String(Math.random())).toString('base64'), filename: 'guia.pdf' },
    });
    const id = up.body.data.id as number;
    const res = await t.call('PUT', `/v1/transport/documents/${id}/approve`, { token: broker.token, body: {} });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe(`Cannot approve a document that is uploaded (Pending validation). Validate it first (PUT /api/v1/transport/documents/${id}/validate), then approve it.`);
  });
});

describe('a path without the /api prefix', () => {
  it('answers 404 naming the path under /api', async () => {
    const res = await fetch(`${t.twin.url}/v1/couriers/manifests`, { headers: { authorization: 'Bearer x' } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toBe("No route for GET /v1/couriers/manifests. Did you mean GET /api/v1/couriers/manifests? The API's paths begin with /api (docs/partners/api-reference.md).");
  });

  it('answers a path under /api without /v1 with the /v1 path', async () => {
    const res = await t.call('GET', '/couriers/manifests');
    expect(res.status).toBe(404);
    expect(res.body.message).toContain('Did you mean GET /api/v1/couriers/manifests?');
  });

  it('gives no hint for a path that is nowhere', async () => {
    const res = await t.call('GET', '/v1/nothing-here');
    expect(res.body.message).toBe('No route for GET /api/v1/nothing-here.');
  });
});
