import { describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { pdf } from '#support/files';
import { recordEvents } from '#support/events';
import { sha256Checksum } from '#core/documents/files';
import { blobs } from '#infra/blobs';

const t = useTwin();
const events = recordEvents();

async function declare(token: string, file: Buffer, extra: Record<string, unknown> = {}) {
  return t.call('POST', '/v1/transport/documents/upload-url', {
    token,
    body: { document_type: 'manifest', filename: 'manifiesto.pdf', file_size: file.length, checksum: sha256Checksum(file), manifest_id: 'M-9', ...extra },
  });
}

async function post(upload: { upload_url: string; fields: Record<string, string> }, file: Buffer, type = 'application/pdf') {
  const form = new FormData();
  for (const [k, v] of Object.entries(upload.fields)) form.append(k, v);
  form.append('file', new Blob([file], { type }), 'manifiesto.pdf');
  return fetch(upload.upload_url, { method: 'POST', body: form });
}

describe('large files through a presigned upload', () => {
  it('declares, uploads straight to storage and completes into the same record as a direct upload', async () => {
    const { token, accountId } = await t.account('Big Files SA');
    const file = Buffer.concat([pdf(), Buffer.alloc(7 * 1024 * 1024, 0x20)]);
    const declared = await declare(token, file);
    expect(declared.status).toBe(201);
    expect(declared.body.data).toMatchObject({ method: 'POST', max_bytes: file.length, content_type: 'application/pdf', expires_in_seconds: 900 });
    expect((await post(declared.body.data, file)).status).toBe(204);
    const done = await t.call('POST', `/v1/transport/documents/uploads/${declared.body.data.upload_id}/complete`, { token });
    expect(done.status).toBe(201);
    expect(done.body.data).toMatchObject({
      document_type: 'manifest',
      manifest_id: 'M-9',
      file_name: 'manifiesto.pdf',
      file_size: file.length,
      file_size_human: '7.0 MB',
      mime_type: 'application/pdf',
      checksum: sha256Checksum(file),
      state: 'uploaded',
      version: 1,
    });
    expect(events.map((e) => [e.type, e.account_id])).toEqual([['document.uploaded', accountId]]);
    const again = await t.call('POST', `/v1/transport/documents/uploads/${declared.body.data.upload_id}/complete`, { token });
    expect(again.body.data.id).toBe(done.body.data.id);
    expect((await t.call('GET', '/v1/transport/documents', { token })).body.meta.total).toBe(1);
  });

  it('answers completing before the file arrived with 409', async () => {
    const { token } = await t.account('Early SA');
    const declared = await declare(token, pdf());
    expect((await t.call('POST', `/v1/transport/documents/uploads/${declared.body.data.upload_id}/complete`, { token })).status).toBe(409);
  });

  it('refuses a file whose checksum differs from the declaration, and removes it', async () => {
    const { token } = await t.account('Checksum SA');
    const declared = await declare(token, pdf('AAAA'));
    expect((await post(declared.body.data, pdf('BBBB'))).status).toBe(204);
    const res = await t.call('POST', `/v1/transport/documents/uploads/${declared.body.data.upload_id}/complete`, { token });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty('checksum');
    expect(await blobs().get(declared.body.data.fields.key)).toBeUndefined();
  });

  it('refuses content that is not what the name says', async () => {
    const { token } = await t.account('Disguise SA');
    const fake = Buffer.from('just text, not a pdf at all');
    const declared = await declare(token, fake);
    await post(declared.body.data, fake);
    const res = await t.call('POST', `/v1/transport/documents/uploads/${declared.body.data.upload_id}/complete`, { token });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty('file');
  });

  it('lets storage refuse a file larger than declared or of another type', async () => {
    const { token } = await t.account('Storage SA');
    const declared = await declare(token, pdf());
    expect((await post(declared.body.data, Buffer.concat([pdf(), Buffer.alloc(100)]))).status).toBe(400);
    expect((await post({ ...declared.body.data, fields: { ...declared.body.data.fields, 'Content-Type': 'text/html' } }, pdf())).status).toBe(403);
  });

  it('refuses a declaration over 10 MB with 413 and an unknown type with 422', async () => {
    const { token } = await t.account('Declare SA');
    const big = await t.call('POST', '/v1/transport/documents/upload-url', {
      token,
      body: { document_type: 'awb', filename: 'a.pdf', file_size: 10 * 1024 * 1024 + 1, checksum: `sha256:${'0'.repeat(64)}` },
    });
    expect(big.status).toBe(413);
    const exe = await t.call('POST', '/v1/transport/documents/upload-url', {
      token,
      body: { document_type: 'awb', filename: 'a.exe', file_size: 10, checksum: `sha256:${'0'.repeat(64)}` },
    });
    expect(exe.status).toBe(422);
    expect(exe.body.errors).toHaveProperty('filename');
  });

  it("answers another account's upload id with 404", async () => {
    const a = await t.account('Owner SA');
    const b = await t.account('Thief SA');
    const declared = await declare(a.token, pdf());
    await post(declared.body.data, pdf());
    expect((await t.call('POST', `/v1/transport/documents/uploads/${declared.body.data.upload_id}/complete`, { token: b.token })).status).toBe(404);
    expect((await t.call('POST', '/v1/transport/documents/uploads/not-a-uuid/complete', { token: a.token })).status).toBe(404);
  });
});
