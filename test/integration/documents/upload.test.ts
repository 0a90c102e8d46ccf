import { describe, expect, it } from 'vitest';
import { createHash, randomUUID } from 'node:crypto';
import { useTwin } from '#support/twin';
import { multipart, pdf, png } from '#support/files';
import { recordEvents } from '#support/events';

const t = useTwin();
const events = recordEvents();

async function upload(token: string, fields: Record<string, string>, file?: { name: string; data: Buffer }, headers: Record<string, string> = {}) {
  const form = await multipart(fields, file);
  return t.call('POST', '/v1/transport/documents/upload', { token, raw: form.body, headers: { 'content-type': form.contentType, ...headers } });
}

describe('document upload', () => {
  it('stores a multipart upload and answers 201 with the record of 2.4', async () => {
    const { token, accountId } = await t.account('Uploader SA');
    const file = pdf();
    const res = await upload(token, { document_type: 'awb', awb_number: '123-45678901', manifest_id: 'MAN-1', metadata: '{"flight":"AR1140"}' }, { name: 'guia.pdf', data: file });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      id: expect.any(Number),
      manifest_id: 'MAN-1',
      awb_number: '123-45678901',
      document_type: 'awb',
      document_type_label: 'Air Waybill',
      file_name: 'guia.pdf',
      file_size: file.length,
      file_size_human: `${file.length} B`,
      mime_type: 'application/pdf',
      checksum: `sha256:${createHash('sha256').update(file).digest('hex')}`,
      state: 'uploaded',
      state_label: 'Pending validation',
      version: 1,
      metadata: { flight: 'AR1140' },
    });
    expect(res.body.data.created_at).toMatch(/Z$/);
    expect(res.body.data).not.toHaveProperty('uploader');
    expect(events.map((e) => [e.type, e.account_id, (e.data as { id: number }).id])).toEqual([['document.uploaded', accountId, res.body.data.id]]);
  });

  it('stores a base64 upload the same way', async () => {
    const { token } = await t.account('Base64 SRL');
    const res = await t.call('POST', '/v1/transport/documents/upload', {
      token,
      body: { document_type: 'customs', file_base64: png().toString('base64'), filename: 'sello.png' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ mime_type: 'image/png', file_name: 'sello.png', document_type_label: 'Customs' });
  });

  it('takes the mime type from the content, not from what the client claims', async () => {
    const { token } = await t.account('Claims SA');
    const form = await multipart({ document_type: 'other' }, { name: 'scan.png', data: png() });
    const res = await t.call('POST', '/v1/transport/documents/upload', { token, raw: form.body, headers: { 'content-type': form.contentType } });
    expect(res.body.data.mime_type).toBe('image/png');
  });

  it('refuses a .pdf that is not a PDF with 422 on file', async () => {
    const { token } = await t.account('Liar SA');
    const res = await upload(token, { document_type: 'awb' }, { name: 'fake.pdf', data: png() });
    expect(res.status).toBe(422);
    expect(res.body.errors.file[0]).toMatch(/not a PDF/i);
  });

  it('refuses types outside pdf, jpg, jpeg, png, xlsx, xls', async () => {
    const { token } = await t.account('Exe SA');
    const res = await upload(token, { document_type: 'awb' }, { name: 'run.exe', data: Buffer.from('MZ....') });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty('file');
  });

  it('refuses an empty file and zero-byte base64 with 422', async () => {
    const { token } = await t.account('Empty SA');
    expect((await upload(token, { document_type: 'awb' }, { name: 'empty.pdf', data: Buffer.alloc(0) })).status).toBe(422);
    const res = await t.call('POST', '/v1/transport/documents/upload', { token, body: { document_type: 'awb', file_base64: '', filename: 'a.pdf' } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty('file');
  });

  it('answers invalid base64 with 400', async () => {
    const { token } = await t.account('Bad64 SA');
    const res = await t.call('POST', '/v1/transport/documents/upload', { token, body: { document_type: 'awb', file_base64: 'not base64!!', filename: 'a.pdf' } });
    expect(res.status).toBe(400);
  });

  it('answers a file over 10 MB with 413', async () => {
    const { token } = await t.account('Huge SA');
    const big = Buffer.concat([pdf(), Buffer.alloc(10 * 1024 * 1024)]);
    expect((await upload(token, { document_type: 'awb' }, { name: 'big.pdf', data: big })).status).toBe(413);
  });

  it('asks for a file when none is sent', async () => {
    const { token } = await t.account('NoFile SA');
    const res = await upload(token, { document_type: 'awb' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty('file');
  });

  it('names each invalid field', async () => {
    const { token } = await t.account('Fields SA');
    const res = await upload(token, { document_type: 'passport', awb_number: 'x'.repeat(51), metadata: '[1,2]' }, { name: 'a.pdf', data: pdf() });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['awb_number', 'document_type', 'metadata']);
  });

  it('refuses metadata over 16 KB', async () => {
    const { token } = await t.account('Meta SA');
    const res = await upload(token, { document_type: 'awb', metadata: JSON.stringify({ blob: 'x'.repeat(17 * 1024) }) }, { name: 'a.pdf', data: pdf() });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty('metadata');
  });

  it('keeps a unicode file name but never a path or control characters', async () => {
    const { token } = await t.account('Unicode SA');
    const res = await upload(token, { document_type: 'awb' }, { name: '../../Guía aérea Ñandú 中文.pdf', data: pdf() });
    expect(res.status).toBe(201);
    expect(res.body.data.file_name).toBe('Guía aérea Ñandú 中文.pdf');
    const ctl = await t.call('POST', '/v1/transport/documents/upload', { token, body: { document_type: 'awb', file_base64: pdf().toString('base64'), filename: 'C:\\tmp\\in\u0007voice.pdf' } });
    expect(ctl.status).toBe(422);
  });

  it('answers a form that is not multipart or JSON with 415', async () => {
    const { token } = await t.account('Form SA');
    const res = await t.call('POST', '/v1/transport/documents/upload', { token, raw: 'document_type=awb', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(415);
  });
});

describe('upload idempotency', () => {
  it('returns the first document again for the same key and content, without a second record', async () => {
    const { token } = await t.account('Retry SA');
    const key = randomUUID();
    const first = await upload(token, { document_type: 'awb' }, { name: 'a.pdf', data: pdf() }, { 'idempotency-key': key });
    const again = await upload(token, { document_type: 'awb' }, { name: 'a.pdf', data: pdf() }, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const list = await t.call('GET', '/v1/transport/documents', { token });
    expect(list.body.meta.total).toBe(1);
  });

  it('answers the same key with different content with 409', async () => {
    const { token } = await t.account('Reuse SA');
    const key = randomUUID();
    await upload(token, { document_type: 'awb' }, { name: 'a.pdf', data: pdf('one') }, { 'idempotency-key': key });
    const res = await upload(token, { document_type: 'awb' }, { name: 'a.pdf', data: pdf('two') }, { 'idempotency-key': key });
    expect(res.status).toBe(409);
  });

  it('makes one document of concurrent retries with one key', async () => {
    const { token } = await t.account('Racing SA');
    const key = randomUUID();
    const results = await Promise.all(
      Array.from({ length: 4 }, () => upload(token, { document_type: 'awb' }, { name: 'a.pdf', data: pdf() }, { 'idempotency-key': key })),
    );
    const ids = new Set(results.filter((r) => r.status === 201).map((r) => r.body.data.id));
    expect(ids.size).toBe(1);
    for (const r of results) expect([201, 409]).toContain(r.status);
    expect((await t.call('GET', '/v1/transport/documents', { token })).body.meta.total).toBe(1);
  });

  it('answers a key that is not a UUID with 400', async () => {
    const { token } = await t.account('BadKey SA');
    const res = await upload(token, { document_type: 'awb' }, { name: 'a.pdf', data: pdf() }, { 'idempotency-key': 'abc' });
    expect(res.status).toBe(400);
  });

  it('keys are per account: the same key in two accounts makes two documents', async () => {
    const a = await t.account('Key A');
    const b = await t.account('Key B');
    const key = randomUUID();
    const ra = await upload(a.token, { document_type: 'awb' }, { name: 'a.pdf', data: pdf() }, { 'idempotency-key': key });
    const rb = await upload(b.token, { document_type: 'awb' }, { name: 'a.pdf', data: pdf() }, { 'idempotency-key': key });
    expect(ra.body.data.id).not.toBe(rb.body.data.id);
  });
});

describe('upload size', () => {
  it('accepts a direct upload of exactly 10 MB on the twin', async () => {
    const { token } = await t.account('Ten MB SA');
    const head = Buffer.from('%PDF-1.4\n');
    const file = Buffer.concat([head, Buffer.alloc(10 * 1024 * 1024 - head.length, 0x20)]);
    const res = await upload(token, { document_type: 'manifest' }, { name: 'ten.pdf', data: file });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ file_size: 10 * 1024 * 1024, file_size_human: '10.0 MB' });
  });
});
