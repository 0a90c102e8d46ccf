import { describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { sha256Checksum } from '#core/documents/files';
import { blobs } from '#infra/blobs';
import { json, xlsx } from './storage';

const t = useTwin();

async function declare(token: string, file: Buffer, extra: Record<string, unknown> = {}) {
  return t.call('POST', '/v1/manifests/storage/upload-url', {
    token,
    body: { courier_code: 'dhl', file_name: 'manifiesto.json', file_size: file.length, checksum: sha256Checksum(file), manifest_name: 'Vuelo 1', ...extra },
  });
}

async function post(upload: { upload_url: string; fields: Record<string, string> }, file: Buffer, name = 'manifiesto.json') {
  const form = new FormData();
  for (const [k, v] of Object.entries(upload.fields)) form.append(k, v);
  form.append('file', new Blob([file]), name);
  return fetch(upload.upload_url, { method: 'POST', body: form });
}

const complete = (token: string, uploadId: string) => t.call('POST', `/v1/manifests/storage/uploads/${uploadId}/complete`, { token });

/** A JSON manifest of about `mb` MiB. */
function bigJson(mb: number): Buffer {
  return Buffer.concat([Buffer.from('{"items":"'), Buffer.alloc(mb * 1024 * 1024, 0x61), Buffer.from('"}\n')]);
}

describe('stored manifest files: large files through a presigned upload', () => {
  it('declares, uploads straight to storage and completes into the record a direct upload makes', async () => {
    const { token } = await t.account('Big Manifests SA');
    const file = bigJson(39);
    const declared = await declare(token, file);
    expect(declared.status).toBe(201);
    expect(declared.body.data).toMatchObject({
      upload_id: expect.any(String),
      method: 'POST',
      file_field: 'file',
      max_bytes: file.length,
      content_type: 'application/json',
      expires_in_seconds: 900,
      complete_url: `/api/v1/manifests/storage/uploads/${declared.body.data.upload_id}/complete`,
    });
    expect(declared.body.data.fields.key).toMatch(/^manifest-files\/\d+\/[0-9a-f-]{36}\.json$/);
    expect((await post(declared.body.data, file)).status).toBe(204);
    const done = await complete(token, declared.body.data.upload_id);
    expect(done.status).toBe(201);
    expect(done.body.data).toMatchObject({
      file_name: 'manifiesto.json',
      file_size: { bytes: file.length, human: '39.0 MB' },
      courier_code: 'DHL',
      manifest_name: 'Vuelo 1',
      mime_type: 'application/json',
      checksum: sha256Checksum(file),
    });
    const download = await fetch(done.body.data.file_url);
    expect(Buffer.from(await download.arrayBuffer()).equals(file)).toBe(true);
    const again = await complete(token, declared.body.data.upload_id);
    expect(again.status).toBe(201);
    expect(again.body.data.id).toBe(done.body.data.id);
    expect((await t.call('GET', '/v1/manifests/storage/list', { token })).body.meta.total).toBe(1);
  });

  it('refuses a file whose checksum differs from the declaration with 422, and removes it', async () => {
    const { token } = await t.account('Checksum SA');
    const declared = await declare(token, json({ n: 1 }));
    expect((await post(declared.body.data, json({ n: 2 }))).status).toBe(204);
    const res = await complete(token, declared.body.data.upload_id);
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty('checksum');
    expect(await blobs().get(declared.body.data.fields.key)).toBeUndefined();
  });

  it('refuses content that is not what the name says with 422 on file', async () => {
    const { token } = await t.account('Disguise SA');
    const fake = xlsx();
    const declared = await declare(token, fake);
    await post(declared.body.data, fake);
    const res = await complete(token, declared.body.data.upload_id);
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty('file');
  });

  it('completes a declared xlsx workbook with its spreadsheet type', async () => {
    const { token } = await t.account('Workbook SA');
    const file = xlsx();
    const declared = await declare(token, file, { file_name: 'm.xlsx', courier_code: 'UPS' });
    expect(declared.body.data.content_type).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    await post(declared.body.data, file, 'm.xlsx');
    const res = await complete(token, declared.body.data.upload_id);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ file_name: 'm.xlsx', courier_code: 'UPS' });
  });

  it('answers a declaration over 40 MB with 413', async () => {
    const { token } = await t.account('Huge SA');
    const res = await t.call('POST', '/v1/manifests/storage/upload-url', {
      token,
      body: { courier_code: 'DHL', file_name: 'm.json', file_size: 40 * 1024 * 1024 + 1, checksum: `sha256:${'0'.repeat(64)}` },
    });
    expect(res.status).toBe(413);
  });

  it('accepts a declaration of exactly 40 MB', async () => {
    const { token } = await t.account('Forty SA');
    const res = await t.call('POST', '/v1/manifests/storage/upload-url', {
      token,
      body: { courier_code: 'DHL', file_name: 'm.xlsx', file_size: 40 * 1024 * 1024, checksum: `sha256:${'0'.repeat(64)}` },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.max_bytes).toBe(40 * 1024 * 1024);
  });

  it('answers a declaration of an empty file, an unknown type or a bad courier code with 422 naming the field', async () => {
    const { token } = await t.account('Declare SA');
    const base = { courier_code: 'DHL', file_name: 'm.json', file_size: 10, checksum: `sha256:${'0'.repeat(64)}` };
    const cases: [Record<string, unknown>, string][] = [
      [{ file_size: 0 }, 'file_size'],
      [{ file_name: 'm.pdf' }, 'file_name'],
      [{ courier_code: 'D H L' }, 'courier_code'],
      [{ checksum: 'md5:abc' }, 'checksum'],
    ];
    for (const [change, field] of cases) {
      const res = await t.call('POST', '/v1/manifests/storage/upload-url', { token, body: { ...base, ...change } });
      expect(res.status, field).toBe(422);
      expect(Object.keys(res.body.errors), field).toEqual([field]);
    }
  });

  it('lets storage refuse a file larger than declared', async () => {
    const { token } = await t.account('Storage SA');
    const declared = await declare(token, json());
    expect((await post(declared.body.data, Buffer.concat([json(), Buffer.from('  ')]))).status).toBe(400);
  });

  it('answers completing before the file arrived with 409', async () => {
    const { token } = await t.account('Early SA');
    const declared = await declare(token, json());
    expect((await complete(token, declared.body.data.upload_id)).status).toBe(409);
  });

  it("answers another account's upload id, or a document upload id, with 404", async () => {
    const a = await t.account('Owner SA');
    const b = await t.account('Thief SA');
    const declared = await declare(a.token, json());
    await post(declared.body.data, json());
    expect((await complete(b.token, declared.body.data.upload_id)).status).toBe(404);
    const doc = await t.call('POST', '/v1/transport/documents/upload-url', {
      token: a.token,
      body: { document_type: 'manifest', filename: 'm.xlsx', file_size: xlsx().length, checksum: sha256Checksum(xlsx()) },
    });
    expect((await complete(a.token, doc.body.data.upload_id)).status).toBe(404);
    expect((await t.call('POST', `/v1/transport/documents/uploads/${declared.body.data.upload_id}/complete`, { token: a.token })).status).toBe(404);
  });
});
