import { describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { pdf, png } from '#support/files';
import { recordEvents } from '#support/events';
import { blobs } from '#infra/blobs';

const t = useTwin();
const events = recordEvents();

async function newDoc(token: string, extra: Record<string, unknown> = {}) {
  const res = await t.call('POST', '/v1/transport/documents/upload', {
    token,
    body: { document_type: 'awb', file_base64: pdf(String(Math.random())).toString('base64'), filename: 'guia.pdf', ...extra },
  });
  if (res.status !== 201) throw new Error(res.text);
  return res.body.data as { id: number; version: number };
}

async function setup() {
  const partner = await t.account(`Partner ${Math.random()}`);
  const broker = await t.account(`Broker ${Math.random()}`, { kind: 'broker' });
  return { partner, broker };
}

describe('the approval workflow', () => {
  it('validates, then approves, recording who and when', async () => {
    const { partner, broker } = await setup();
    const doc = await newDoc(partner.token);
    const v = await t.call('PUT', `/v1/transport/documents/${doc.id}/validate`, { token: broker.token, body: { notes: 'Looks right' } });
    expect(v.status).toBe(200);
    expect(v.body.data).toMatchObject({ id: doc.id, state: 'validated', state_label: 'Pending approval', validation_notes: 'Looks right' });
    expect(v.body.data.validated_at).toMatch(/Z$/);
    const a = await t.call('PUT', `/v1/transport/documents/${doc.id}/approve`, { token: broker.token, body: {} });
    expect(a.body.data).toMatchObject({ id: doc.id, state: 'approved', state_label: 'Approved' });
    const detail = await t.call('GET', `/v1/transport/documents/${doc.id}`, { token: partner.token });
    expect(detail.body.data).toMatchObject({
      uploader: { id: partner.tokenId, name: expect.any(String), email: null },
      validator: { id: broker.tokenId },
      approver: { id: broker.tokenId },
      validation_notes: 'Looks right',
      approved_at: a.body.data.approved_at,
    });
    expect(events.map((e) => e.type)).toEqual(['document.uploaded', 'document.validated', 'document.approved']);
    expect(events[2].data).toMatchObject({ id: doc.id, account_id: partner.accountId, document_type: 'awb', state: 'approved', version: 1 });
  });

  it('answers the whole audit on the detail: who validated and approved with both notes, who rejected with the reason (issue 40)', async () => {
    const { partner, broker } = await setup();
    const doc = await newDoc(partner.token);
    await t.call('PUT', `/v1/transport/documents/${doc.id}/validate`, { token: broker.token, body: { notes: 'Firmas completas' } });
    await t.call('PUT', `/v1/transport/documents/${doc.id}/approve`, { token: broker.token, body: { notes: 'Coincide con el manifiesto' } });
    const approved = (await t.call('GET', `/v1/transport/documents/${doc.id}`, { token: partner.token })).body.data;
    expect(approved).toMatchObject({ validator: { id: broker.tokenId }, validation_notes: 'Firmas completas', approver: { id: broker.tokenId }, approval_notes: 'Coincide con el manifiesto', rejecter: null, rejection_reason: null });
    const other = await newDoc(partner.token);
    await t.call('PUT', `/v1/transport/documents/${other.id}/reject`, { token: broker.token, body: { reason: 'Escaneo ilegible' } });
    const rejected = (await t.call('GET', `/v1/transport/documents/${other.id}`, { token: partner.token })).body.data;
    expect(rejected).toMatchObject({ rejecter: { id: broker.tokenId, name: expect.any(String) }, rejection_reason: 'Escaneo ilegible', approval_notes: null, validator: null });
    expect(rejected.rejected_at).toMatch(/Z$/);
  });

  it("names each listed document's account, so a broker reads the courier and not its number (issue 40)", async () => {
    const { partner, broker } = await setup();
    const doc = await newDoc(partner.token);
    const listed = (await t.call('GET', `/v1/transport/documents?per_page=100`, { token: broker.token })).body.data as { id: number; account_id: number; account_name: string | null }[];
    expect(listed.find((d) => d.id === doc.id)).toMatchObject({ account_id: partner.accountId, account_name: expect.stringMatching(/^Partner /) });
  });

  it('answers a transition not allowed from the current state with 409 naming the state', async () => {
    const { partner, broker } = await setup();
    const doc = await newDoc(partner.token);
    const res = await t.call('PUT', `/v1/transport/documents/${doc.id}/approve`, { token: broker.token, body: {} });
    expect(res.status).toBe(409);
    expect(res.body.message).toContain('uploaded');
  });

  it('rejects from uploaded or validated with a required reason', async () => {
    const { partner, broker } = await setup();
    const doc = await newDoc(partner.token);
    expect((await t.call('PUT', `/v1/transport/documents/${doc.id}/reject`, { token: broker.token, body: {} })).status).toBe(422);
    const r = await t.call('PUT', `/v1/transport/documents/${doc.id}/reject`, { token: broker.token, body: { reason: 'Illegible scan' } });
    expect(r.body.data).toMatchObject({ state: 'rejected', rejection_reason: 'Illegible scan' });
    expect(r.body.data.rejected_at).toMatch(/Z$/);
    expect((await t.call('PUT', `/v1/transport/documents/${doc.id}/reject`, { token: broker.token, body: { reason: 'again' } })).status).toBe(409);
  });

  it('lets only brokers and admins review', async () => {
    const { partner } = await setup();
    const doc = await newDoc(partner.token);
    expect((await t.call('PUT', `/v1/transport/documents/${doc.id}/validate`, { token: partner.token, body: {} })).status).toBe(403);
    expect((await t.call('PUT', `/v1/transport/documents/${doc.id}/validate`, { body: {} })).status).toBe(200);
  });

  it('lets exactly one of two concurrent approvals win', async () => {
    const { partner, broker } = await setup();
    const doc = await newDoc(partner.token);
    await t.call('PUT', `/v1/transport/documents/${doc.id}/validate`, { token: broker.token, body: {} });
    const results = await Promise.all([1, 2, 3].map(() => t.call('PUT', `/v1/transport/documents/${doc.id}/approve`, { token: broker.token, body: {} })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    expect(events.filter((e) => e.type === 'document.approved')).toHaveLength(1);
  });
});

describe('supersede and history', () => {
  it('makes version 2 in uploaded and marks the original superseded', async () => {
    const { partner, broker } = await setup();
    const doc = await newDoc(partner.token);
    await t.call('PUT', `/v1/transport/documents/${doc.id}/reject`, { token: broker.token, body: { reason: 'Blurry' } });
    const res = await t.call('POST', `/v1/transport/documents/${doc.id}/supersede`, {
      token: partner.token,
      body: { file_base64: png().toString('base64'), filename: 'guia-v2.png', reason: 'Sharper scan' },
    });
    expect(res.status).toBe(201);
    const newId = res.body.data.new_document.id;
    expect(res.body.data).toEqual({
      new_document: { id: newId, file_name: 'guia-v2.png', state: 'uploaded', version: 2 },
      superseded_document: { id: doc.id, state: 'superseded', superseded_by: newId },
    });
    const old = await t.call('GET', `/v1/transport/documents/${doc.id}`, { token: partner.token });
    expect(old.body.data).toMatchObject({ state: 'superseded', superseded_by: newId, supersede_reason: 'Sharper scan' });
    expect(old.body.data.superseded_at).toMatch(/Z$/);
    expect(events.map((e) => e.type)).toEqual(['document.uploaded', 'document.rejected', 'document.superseded', 'document.uploaded']);

    const history = await t.call('GET', `/v1/transport/documents/${doc.id}/history`, { token: partner.token });
    expect(history.body.data).toMatchObject({
      current: { id: newId, version: 2, state: 'uploaded' },
      history: [{ id: doc.id, version: 1, state: 'superseded', superseded_by: newId, supersede_reason: 'Sharper scan' }],
      total_versions: 2,
    });
    const oldDownload = await t.call('GET', `/v1/transport/documents/${doc.id}/download`, { token: partner.token });
    expect((await fetch(oldDownload.body.data.download_url)).status).toBe(200);
  });

  it('refuses to supersede a superseded document with 409', async () => {
    const { partner } = await setup();
    const doc = await newDoc(partner.token);
    const body = { file_base64: pdf('v2').toString('base64'), filename: 'v2.pdf' };
    expect((await t.call('POST', `/v1/transport/documents/${doc.id}/supersede`, { token: partner.token, body })).status).toBe(201);
    const again = await t.call('POST', `/v1/transport/documents/${doc.id}/supersede`, { token: partner.token, body });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('superseded');
  });

  it('supersedes an approved document too, and the new version counts from the latest', async () => {
    const { partner } = await setup();
    const v1 = await newDoc(partner.token);
    await t.call('PUT', `/v1/transport/documents/${v1.id}/validate`, { body: {} });
    await t.call('PUT', `/v1/transport/documents/${v1.id}/approve`, { body: {} });
    const s2 = await t.call('POST', `/v1/transport/documents/${v1.id}/supersede`, { token: partner.token, body: { file_base64: pdf('2').toString('base64'), filename: 'b.pdf' } });
    const v2 = s2.body.data.new_document.id;
    const s3 = await t.call('POST', `/v1/transport/documents/${v2}/supersede`, { token: partner.token, body: { file_base64: pdf('3').toString('base64'), filename: 'c.pdf' } });
    expect(s3.body.data.new_document.version).toBe(3);
    const history = await t.call('GET', `/v1/transport/documents/${v1.id}/history`, { token: partner.token });
    expect(history.body.data.total_versions).toBe(3);
    expect(history.body.data.history.map((h: { version: number }) => h.version)).toEqual([2, 1]);
  });
});

describe('delete', () => {
  it('removes an uploaded document and its file', async () => {
    const { partner } = await setup();
    const doc = await newDoc(partner.token);
    const dl = await t.call('GET', `/v1/transport/documents/${doc.id}/download`, { token: partner.token });
    const res = await t.call('DELETE', `/v1/transport/documents/${doc.id}`, { token: partner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: expect.any(String) });
    expect((await t.call('GET', `/v1/transport/documents/${doc.id}`, { token: partner.token })).status).toBe(404);
    expect((await fetch(dl.body.data.download_url)).status).toBe(403);
  });

  it('refuses to delete an approved or validated document with 403', async () => {
    const { partner } = await setup();
    const doc = await newDoc(partner.token);
    await t.call('PUT', `/v1/transport/documents/${doc.id}/validate`, { body: {} });
    expect((await t.call('DELETE', `/v1/transport/documents/${doc.id}`, { token: partner.token })).status).toBe(403);
    await t.call('PUT', `/v1/transport/documents/${doc.id}/approve`, { body: {} });
    const res = await t.call('DELETE', `/v1/transport/documents/${doc.id}`, { token: partner.token });
    expect(res.status).toBe(403);
    expect(res.body.success).toBe(false);
  });

  it('deletes a rejected document', async () => {
    const { partner } = await setup();
    const doc = await newDoc(partner.token);
    await t.call('PUT', `/v1/transport/documents/${doc.id}/reject`, { body: { reason: 'no' } });
    expect((await t.call('DELETE', `/v1/transport/documents/${doc.id}`, { token: partner.token })).status).toBe(200);
  });
});

describe('download', () => {
  it('gives a URL signed for 60 minutes that serves the file, and refuses it tampered', async () => {
    const { partner } = await setup();
    const doc = await newDoc(partner.token);
    const res = await t.call('GET', `/v1/transport/documents/${doc.id}/download`, { token: partner.token });
    expect(res.body.data).toMatchObject({ expires_in_minutes: 60, file_name: 'guia.pdf', mime_type: 'application/pdf', file_size: expect.any(Number) });
    const file = await fetch(res.body.data.download_url);
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');
    const tampered = res.body.data.download_url.replace(/sig=([0-9a-f])/, (_: string, c: string) => `sig=${c === 'a' ? 'b' : 'a'}`);
    expect((await fetch(tampered)).status).toBe(403);
    expect(events.map((e) => e.type)).toContain('document.downloaded');
  });
});

describe('lists and tenancy', () => {
  it('paginates with meta and filters by state, type, manifest and AWB', async () => {
    const { partner } = await setup();
    for (let i = 0; i < 5; i++) await newDoc(partner.token, { manifest_id: i < 3 ? 'M-1' : 'M-2', awb_number: `AWB-${i}` });
    const page = await t.call('GET', '/v1/transport/documents?per_page=2&page=2', { token: partner.token });
    expect(page.body.meta).toEqual({ current_page: 2, last_page: 3, per_page: 2, total: 5 });
    expect(page.body.data).toHaveLength(2);
    expect(page.body.data[0]).not.toHaveProperty('checksum');
    expect(page.body.data[0]).not.toHaveProperty('metadata');
    expect((await t.call('GET', '/v1/transport/documents?manifest_id=M-1', { token: partner.token })).body.meta.total).toBe(3);
    expect((await t.call('GET', '/v1/transport/documents?awb_number=AWB-4', { token: partner.token })).body.meta.total).toBe(1);
    expect((await t.call('GET', '/v1/transport/documents?state=approved', { token: partner.token })).body.meta.total).toBe(0);
    expect((await t.call('GET', '/v1/transport/documents?document_type=awb', { token: partner.token })).body.meta.total).toBe(5);
    expect((await t.call('GET', '/v1/transport/documents', { token: partner.token })).body.meta.per_page).toBe(15);
  });

  it('refuses bad list parameters with 422', async () => {
    const { partner } = await setup();
    for (const q of ['per_page=101', 'per_page=0', 'page=x', 'state=lost', 'document_type=passport']) {
      expect((await t.call('GET', `/v1/transport/documents?${q}`, { token: partner.token })).status, q).toBe(422);
    }
  });

  it("gives another account 404 for a document it does not own, on every route", async () => {
    const { partner } = await setup();
    const other = await t.account('Outsider SA');
    const doc = await newDoc(partner.token);
    for (const [method, path, body] of [
      ['GET', `/v1/transport/documents/${doc.id}`],
      ['GET', `/v1/transport/documents/${doc.id}/download`],
      ['GET', `/v1/transport/documents/${doc.id}/history`],
      ['DELETE', `/v1/transport/documents/${doc.id}`],
      ['POST', `/v1/transport/documents/${doc.id}/supersede`, { file_base64: pdf().toString('base64'), filename: 'x.pdf' }],
    ] as const) {
      expect((await t.call(method, path, { token: other.token, body })).status, `${method} ${path}`).toBe(404);
    }
    expect((await t.call('GET', '/v1/transport/documents', { token: other.token })).body.meta.total).toBe(0);
  });

  it("lets a broker see every account's documents but not delete them", async () => {
    const { partner, broker } = await setup();
    const doc = await newDoc(partner.token);
    expect((await t.call('GET', `/v1/transport/documents/${doc.id}`, { token: broker.token })).status).toBe(200);
    expect((await t.call('DELETE', `/v1/transport/documents/${doc.id}`, { token: broker.token })).status).toBe(403);
  });
});

describe('stored files', () => {
  it('keeps the file under a key the service chose', async () => {
    const { partner } = await setup();
    const doc = await newDoc(partner.token, { filename: '../../../etc/passwd.pdf' });
    const detail = await t.call('GET', `/v1/transport/documents/${doc.id}`, { token: partner.token });
    expect(detail.body.data.file_name).toBe('passwd.pdf');
    expect(await blobs().get('../etc/passwd.pdf').catch(() => 'refused')).toBe('refused');
  });
});
