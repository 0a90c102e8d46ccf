import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTwin } from '#support/twin';
import { pdf, png } from '#support/files';
import { humanSize, sha256Checksum } from '#core/documents/files';
import { json, upload, xls, xlsm, xlsx } from './storage';

const t = useTwin();

describe('stored manifest files: direct upload', () => {
  for (const [name, data, mime] of [
    ['manifiesto.json', json(), 'application/json'],
    ['manifiesto.xlsx', xlsx(), 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
    ['manifiesto.xlsm', xlsm(), 'application/vnd.ms-excel.sheet.macroEnabled.12'],
    ['manifiesto.xls', xls(), 'application/vnd.ms-excel'],
  ] as const) {
    it(`stores a ${name.split('.')[1]} file and answers 201 with the record of 2.8`, async () => {
      const { token } = await t.account(`Courier ${name}`);
      const res = await upload(t, token, { courier_code: 'DHL', manifest_name: 'Vuelo AR1140', description: 'Lunes' }, { name, data });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ success: true, message: 'File stored.' });
      expect(res.body.data).toMatchObject({
        id: expect.any(Number),
        file_name: name,
        file_url: expect.stringMatching(/^http/),
        file_size: { bytes: data.length, human: humanSize(data.length) },
        courier_code: 'DHL',
        manifest_name: 'Vuelo AR1140',
        description: 'Lunes',
        mime_type: mime,
        checksum: sha256Checksum(data),
      });
      expect(res.body.data.uploaded_at).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    });
  }

  it('gives a file_url that downloads exactly the uploaded bytes', async () => {
    const { token } = await t.account('Download SA');
    const data = xlsx();
    const res = await upload(t, token, { courier_code: 'FEDEX' }, { name: 'm.xlsx', data });
    const download = await fetch(res.body.data.file_url);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(data)).toBe(true);
  });

  it('stores the courier code trimmed and upper-cased', async () => {
    const { token } = await t.account('Lower SA');
    const res = await upload(t, token, { courier_code: ' dhl ' }, { name: 'm.json', data: json() });
    expect(res.status).toBe(201);
    expect(res.body.data.courier_code).toBe('DHL');
  });

  it('answers null for the optional name and description when they are not sent', async () => {
    const { token } = await t.account('Bare SA');
    const res = await upload(t, token, { courier_code: 'UPS' }, { name: 'm.json', data: json() });
    expect(res.body.data).toMatchObject({ manifest_name: null, description: null });
  });

  it('answers a missing file with 422 naming file', async () => {
    const { token } = await t.account('No File SA');
    const res = await upload(t, token, { courier_code: 'DHL' });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['file']);
  });

  it('answers a missing courier_code with 422 naming courier_code', async () => {
    const { token } = await t.account('No Courier SA');
    const res = await upload(t, token, {}, { name: 'm.json', data: json() });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ courier_code: ['Required.'] });
  });

  it('answers a courier_code that is not 2 to 10 letters or digits with 422', async () => {
    const { token } = await t.account('Bad Courier SA');
    for (const code of ['D', 'D-H-L', 'ABCDEFGHIJK', '', 'DHL;DROP', 'ÑANDÚ']) {
      const res = await upload(t, token, { courier_code: code }, { name: 'm.json', data: json() });
      expect(res.status, code).toBe(422);
      expect(res.body.errors, code).toHaveProperty('courier_code');
    }
  });

  it('names every failing field at once', async () => {
    const { token } = await t.account('Many Errors SA');
    const res = await upload(t, token, { courier_code: 'X', manifest_name: 'n'.repeat(256) });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['courier_code', 'file', 'manifest_name']);
  });

  it('refuses a PNG renamed .xlsx with 422 on file', async () => {
    const { token } = await t.account('Disguise SA');
    const res = await upload(t, token, { courier_code: 'DHL' }, { name: 'm.xlsx', data: png() });
    expect(res.status).toBe(422);
    expect(res.body.errors.file[0]).toMatch(/not an XLSX/);
  });

  it('refuses an xls workbook named .xlsx and an xlsx named .xls', async () => {
    const { token } = await t.account('Swapped SA');
    expect((await upload(t, token, { courier_code: 'DHL' }, { name: 'm.xlsx', data: xls() })).status).toBe(422);
    expect((await upload(t, token, { courier_code: 'DHL' }, { name: 'm.xls', data: xlsx() })).status).toBe(422);
  });

  it('refuses types other than json, xlsx, xlsm and xls with 422', async () => {
    const { token } = await t.account('Pdf SA');
    const res = await upload(t, token, { courier_code: 'DHL' }, { name: 'm.pdf', data: pdf() });
    expect(res.status).toBe(422);
    expect(res.body.errors.file[0]).toBe('Allowed types: json, xlsx, xlsm, xls.');
  });

  it('refuses a .json file that is not valid JSON with 422', async () => {
    const { token } = await t.account('Broken Json SA');
    const res = await upload(t, token, { courier_code: 'DHL' }, { name: 'm.json', data: Buffer.from('{"items": [1, 2') });
    expect(res.status).toBe(422);
    expect(res.body.errors.file[0]).toMatch(/not (valid JSON|a JSON object or array)/);
  });

  it('refuses JSON that is not an object or an array, or not UTF-8', async () => {
    const { token } = await t.account('Scalar Json SA');
    expect((await upload(t, token, { courier_code: 'DHL' }, { name: 'm.json', data: Buffer.from('42') })).status).toBe(422);
    expect((await upload(t, token, { courier_code: 'DHL' }, { name: 'm.json', data: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) })).status).toBe(422);
  });

  it('refuses an empty file with 422', async () => {
    const { token } = await t.account('Empty SA');
    const res = await upload(t, token, { courier_code: 'DHL' }, { name: 'm.json', data: Buffer.alloc(0) });
    expect(res.status).toBe(422);
    expect(res.body.errors.file).toEqual(['The file is empty.']);
  });

  it('answers a direct upload over 40 MB with 413', async () => {
    const { token } = await t.account('Huge SA');
    const res = await upload(t, token, { courier_code: 'DHL' }, { name: 'm.json', data: Buffer.alloc(40 * 1024 * 1024 + 1, 0x20) });
    expect(res.status).toBe(413);
  });

  it('answers a body that is not multipart with 415', async () => {
    const { token } = await t.account('Json Body SA');
    const res = await t.call('POST', '/v1/manifests/storage/upload', { token, body: { courier_code: 'DHL' } });
    expect(res.status).toBe(415);
  });

  it('keeps a unicode file name but never a path or control characters', async () => {
    const { token } = await t.account('Unicode SA');
    const res = await upload(t, token, { courier_code: 'DHL' }, { name: '../../Manifiesto aéreo Ñandú 中文\u202e.json', data: json() });
    expect(res.status).toBe(201);
    expect(res.body.data.file_name).toBe('Manifiesto aéreo Ñandú 中文.json');
  });

  it('returns the first file again for the same Idempotency-Key and content, without a second record', async () => {
    const { token } = await t.account('Retry SA');
    const key = randomUUID();
    const first = await upload(t, token, { courier_code: 'DHL' }, { name: 'm.json', data: json() }, { 'idempotency-key': key });
    const again = await upload(t, token, { courier_code: 'DHL' }, { name: 'm.json', data: json() }, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);
    expect((await t.call('GET', '/v1/manifests/storage/list', { token })).body.meta.total).toBe(1);
  });

  it('answers the same Idempotency-Key with different content with 409', async () => {
    const { token } = await t.account('Reuse SA');
    const key = randomUUID();
    await upload(t, token, { courier_code: 'DHL' }, { name: 'm.json', data: json({ a: 1 }) }, { 'idempotency-key': key });
    const res = await upload(t, token, { courier_code: 'DHL' }, { name: 'm.json', data: json({ a: 2 }) }, { 'idempotency-key': key });
    expect(res.status).toBe(409);
  });

  it('answers an Idempotency-Key that is not a UUID with 400', async () => {
    const { token } = await t.account('Bad Key SA');
    const res = await upload(t, token, { courier_code: 'DHL' }, { name: 'm.json', data: json() }, { 'idempotency-key': 'abc' });
    expect(res.status).toBe(400);
  });

  it('answers without a token with 401', async () => {
    const res = await upload(t, null as unknown as string, { courier_code: 'DHL' }, { name: 'm.json', data: json() });
    expect(res.status).toBe(401);
  });
});
